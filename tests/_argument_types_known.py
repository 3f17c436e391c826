"""The cases of tests/test_argument_types.py whose exception type still differs from torch's, by reason.

Each is a strict xfail there: a fix makes it pass and fails the test until its line here goes.  Regenerate the
lists with ``python tests/test_argument_types.py --known``.
"""

NOT_REJECTED = ("torchlike accepts the value where torch's parser rejects its type (a float for an int, a str "
                "or float for a bool, None for a number): rejecting it needs a type check on the success path")
METHOD_ATTRIBUTE = ("a hot Tensor method kept without the op table's parser wrapper (registry._BARE_METHODS: "
                    "fill_, masked_fill) reads a tensor attribute of the non-Tensor argument (Python's "
                    "AttributeError), or a method torchlike lacks (its NotImplementedError is an AttributeError too)")
FUNCTION_ATTRIBUTE = ("torchlike.X is F.X (one nn.functional entry), where torch's F.X is Python that reads a "
                      "tensor attribute of the non-Tensor argument (AttributeError) and torch.X is C (its parser's "
                      "TypeError), or takes its arguments in another order (batch_norm, instance_norm): one object "
                      "cannot raise both")
NUMBER_CONVERSION = ("the op body (a Tensor method without a wrapper, or a function outside the table) makes a "
                     "number of the str with int()/float(): Python's ValueError")
NOT_IMPLEMENTED = "torchlike raises its not-implemented/removed error whatever the arguments"
NO_DEVICE = "torchlike raises its no-such-device error before it looks at the arguments"
VALUES_FIRST = ("torchlike checks the input's values (rank, shape, dtype, range) before it meets the wrong-typed "
                "argument, where torch's parser rejects the type first, and the op declares no torch signature "
                "(torchlike/_ops/signatures.py), or torch's own Python-level function fails otherwise")

_LISTS = {
    # 29 cases
    VALUES_FIRST: """
    method:backward:float_list method:copy_:float_list method:module_load:float_list method:resize:str
    method:resize:float method:resize:float_list method:resize:int_str function:alpha_dropout:float
    function:celu:int_str function:dropout:float function:einsum:str_only function:feature_alpha_dropout:float
    function:instance_norm:str function:instance_norm:float function:instance_norm:none
    function:instance_norm:float_list function:instance_norm:int_str function:norm:str_only
    function:pca_lowrank:str_only function:segment_reduce:float function:segment_reduce:none
    function:sparse_coo_tensor:none function:sparse_coo_tensor:int_str function:svd_lowrank:str_only
    function:tensordot:str function:tensordot:float function:tensordot:none function:tensordot:float_list
    function:tensordot:int_str
    """,
    # 18 cases
    NOT_REJECTED: """
    method:bernoulli:none method:random_:none method:to_sparse:none function:adaptive_max_pool1d:int_str
    function:batch_norm_stats:float function:bernoulli:none function:cumulative_trapezoid:none
    function:normal:int_str function:nuclear_norm:none function:randint_like:float function:result_type:none
    function:selu:str function:selu:float function:selu:none function:selu:float_list function:trapezoid:none
    function:trapz:none function:where:none
    """,
    # 4 cases
    METHOD_ATTRIBUTE: """
    method:fill_:float_list method:index:int_str method:masked_fill:int_str method:to_padded_tensor:float
    """,
    # 13 cases
    FUNCTION_ATTRIBUTE: """
    function:batch_norm:int_str function:binary_cross_entropy_with_logits:str
    function:binary_cross_entropy_with_logits:float function:binary_cross_entropy_with_logits:none
    function:binary_cross_entropy_with_logits:float_list function:binary_cross_entropy_with_logits:int_str
    function:embedding_bag:str function:embedding_bag:float function:embedding_bag:none
    function:embedding_bag:float_list function:embedding_bag:int_str function:instance_norm:str_only
    function:margin_ranking_loss:int_str
    """,
    # 6 cases
    NOT_IMPLEMENTED: """
    method:to_sparse_csc:str method:to_sparse_csc:float method:to_sparse_csc:float_list method:to_sparse_csr:str
    method:to_sparse_csr:float method:to_sparse_csr:float_list
    """,
    # 2 cases
    NUMBER_CONVERSION: """
    method:bernoulli:str method:pinverse:str
    """,
    # 14 cases
    NO_DEVICE: """
    method:cuda:int_str method:ipu:float method:ipu:float_list method:ipu:int_str method:mtia:str method:mtia:float
    method:mtia:float_list method:mtia:int_str method:pin_memory:float method:pin_memory:float_list method:xpu:str
    method:xpu:float method:xpu:float_list method:xpu:int_str
    """,
}

KNOWN = {case: reason for reason, cases in _LISTS.items() for case in cases.split()}
