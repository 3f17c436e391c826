"""The cases of tests/test_argument_types.py whose exception type still differs from torch's, by reason.

Each is a strict xfail there: a fix makes it pass and fails the test until its line here goes.  Regenerate the
lists with ``python tests/test_argument_types.py --known``.
"""

NOT_REJECTED = ("torchlike accepts the value where torch's parser rejects its type (a float for an int, a str "
                "or float for a bool, None for a number): rejecting it needs a type check on the success path")
METHOD_ATTRIBUTE = ("a Tensor method carries no wrapper: its body reads a tensor attribute of the non-Tensor "
                    "argument (Python's AttributeError); translating it needs a per-call wrapper or check that "
                    "every successful call would pay")
FUNCTION_ATTRIBUTE = ("a torch.X outside the op table's wrappers (an nn.functional entry torch.X shares, a "
                      "sparse or module-level function): its body reads a tensor attribute of the non-Tensor "
                      "argument (Python's AttributeError)")
NUMBER_CONVERSION = ("the op body (a Tensor method without a wrapper, or a function outside the table) makes a "
                     "number of the str with int()/float(): Python's ValueError")
NOT_IMPLEMENTED = "torchlike raises its not-implemented/removed error whatever the arguments"
NO_DEVICE = "torchlike raises its no-such-device error before it looks at the arguments"
VALUES_FIRST = ("torchlike checks the input's values (rank, shape, dtype, range) before it meets the wrong-typed "
                "argument, where torch's parser rejects the type first")

_LISTS = {
    # 176 cases
    VALUES_FIRST: """
    method:backward:float_list method:bincount:str method:bincount:float method:bincount:float_list
    method:bincount:int_str method:cholesky_solve:int_str method:copy_:float_list method:dsplit:str
    method:dsplit:float method:dsplit:none method:dsplit:float_list method:histc:int_str method:histogram:str
    method:histogram:float method:histogram:none method:histogram:float_list method:istft:str method:istft:float
    method:istft:none method:istft:float_list method:istft:int_str method:module_load:float_list
    method:multinomial:int_str method:repeat_interleave:dim_str method:repeat_interleave:none method:resize:str
    method:resize:float method:resize:float_list method:resize:int_str method:roll:float_list method:rot90:int_str
    method:stft:str method:stft:float method:stft:none method:stft:float_list method:stft:int_str
    method:to_sparse_bsc:none method:to_sparse_bsc:float_list method:to_sparse_bsr:none
    method:to_sparse_bsr:float_list function:adaptive_avg_pool1d:float_list function:adaptive_max_pool1d:float_list
    function:alpha_dropout:float function:arange:str function:arange:float function:arange:none
    function:arange:float_list function:arange:int_str function:avg_pool1d:float_list function:bincount:str
    function:bincount:float function:bincount:float_list function:bincount:int_str function:cartesian_prod:str
    function:cartesian_prod:float function:cartesian_prod:none function:cartesian_prod:float_list
    function:cartesian_prod:int_str function:celu:int_str function:cholesky_solve:int_str function:combinations:str
    function:combinations:float function:combinations:none function:combinations:float_list
    function:combinations:int_str function:conv_tbc:int_str function:dropout:float function:dsplit:str
    function:dsplit:float function:dsplit:none function:dsplit:float_list function:einsum:str_only
    function:feature_alpha_dropout:float function:group_norm:int_str function:gru:str function:gru:float
    function:gru:none function:gru:float_list function:gru:int_str function:gru:str_only function:histc:int_str
    function:histogram:str function:histogram:float function:histogram:none function:histogram:float_list
    function:histogramdd:str function:histogramdd:float_list function:hsmm:str function:hsmm:float
    function:hsmm:none function:hsmm:float_list function:instance_norm:str function:instance_norm:float
    function:instance_norm:none function:instance_norm:float_list function:instance_norm:int_str function:istft:str
    function:istft:float function:istft:none function:istft:float_list function:istft:int_str
    function:layer_norm:int_str function:lstm:str function:lstm:float function:lstm:none function:lstm:float_list
    function:lstm:int_str function:lstm:str_only function:max_pool1d:float_list
    function:max_pool1d_with_indices:float_list function:max_pool2d:str function:max_pool2d:float
    function:max_pool2d:none function:max_pool2d:float_list function:max_pool2d:int_str function:max_pool3d:str
    function:max_pool3d:float function:max_pool3d:none function:max_pool3d:float_list function:max_pool3d:int_str
    function:meshgrid:str function:meshgrid:float function:meshgrid:none function:meshgrid:float_list
    function:meshgrid:int_str function:multinomial:int_str function:norm:str_only function:nuclear_norm:str
    function:nuclear_norm:dim_str function:pca_lowrank:str_only function:range:float function:range:none
    function:repeat_interleave:dim_str function:repeat_interleave:none function:resize_as_sparse_:str
    function:resize_as_sparse_:float function:resize_as_sparse_:none function:resize_as_sparse_:float_list
    function:rms_norm:int_str function:rnn_relu:str function:rnn_relu:float function:rnn_relu:none
    function:rnn_relu:float_list function:rnn_relu:int_str function:rnn_relu:str_only function:rnn_tanh:str
    function:rnn_tanh:float function:rnn_tanh:none function:rnn_tanh:float_list function:rnn_tanh:int_str
    function:rnn_tanh:str_only function:roll:float_list function:rot90:int_str function:saddmm:int_str
    function:searchsorted:float_list function:segment_reduce:float function:segment_reduce:none
    function:slice_copy:int_str function:sparse_coo_tensor:none function:sparse_coo_tensor:int_str function:stft:str
    function:stft:float function:stft:none function:stft:float_list function:stft:int_str
    function:svd_lowrank:str_only function:tensordot:str function:tensordot:float function:tensordot:none
    function:tensordot:float_list function:tensordot:int_str function:vander:str function:vander:float
    function:vander:float_list function:vander:int_str function:where:int_str
    """,
    # 50 cases
    NOT_REJECTED: """
    method:bernoulli:none method:is_pinned:str method:is_pinned:float method:is_pinned:float_list method:new:float
    method:pin_memory:float method:pin_memory:float_list method:random_:none method:record_stream:str
    method:record_stream:float method:record_stream:none method:record_stream:float_list
    method:repeat_interleave:float method:tensor_split:float_list method:to_sparse:none method:type:float
    function:adaptive_avg_pool1d:float function:adaptive_max_pool1d:float function:adaptive_max_pool1d:int_str
    function:as_tensor:none function:avg_pool1d:float function:batch_norm_stats:float function:bernoulli:none
    function:constant_pad_nd:float_list function:cumulative_trapezoid:float function:cumulative_trapezoid:none
    function:frobenius_norm:none function:group_norm:float function:hinge_embedding_loss:float
    function:is_distributed:str_only function:max_pool1d:float function:max_pool1d_with_indices:float
    function:norm_except_dim:float function:normal:int_str function:nuclear_norm:none function:randint_like:float
    function:repeat_interleave:float function:result_type:none function:selu:str function:selu:float
    function:selu:none function:selu:float_list function:sym_constrain_range:str_only
    function:sym_constrain_range_for_size:str_only function:tensor_split:float_list function:trapezoid:float
    function:trapezoid:none function:trapz:float function:trapz:none function:where:none
    """,
    # 72 cases
    METHOD_ATTRIBUTE: """
    method:addbmm:int_str method:addmm:int_str method:addmv:int_str method:addr:int_str method:baddbmm:int_str
    method:cholesky_solve:float_list method:diagonal_scatter:str method:diagonal_scatter:float
    method:diagonal_scatter:none method:diagonal_scatter:float_list method:fill_:float_list method:index:str
    method:index:float method:index:dim_str method:index:none method:index:float_list method:index:int_str
    method:inner:str method:inner:float method:inner:none method:inner:float_list method:is_set_to:str
    method:is_set_to:float method:is_set_to:none method:is_set_to:float_list method:lerp:int_str method:map_:int_str
    method:masked_fill:int_str method:masked_scatter:int_str method:masked_select:str method:masked_select:float
    method:masked_select:none method:masked_select:float_list method:orgqr:str method:orgqr:float method:orgqr:none
    method:orgqr:float_list method:ormqr:int_str method:put:int_str method:resize_as_:str method:resize_as_:float
    method:resize_as_:none method:resize_as_:float_list method:resize_as_:int_str method:set_:str method:set_:float
    method:set_:dim_str method:set_:none method:set_:float_list method:set_:int_str method:slice_inverse:str
    method:slice_inverse:float method:slice_inverse:dim_str method:slice_inverse:none
    method:slice_inverse:float_list method:slice_inverse:int_str method:to_mkldnn:str method:to_mkldnn:float
    method:to_mkldnn:dim_str method:to_mkldnn:float_list method:to_mkldnn:int_str method:to_padded_tensor:str
    method:to_padded_tensor:float method:to_padded_tensor:dim_str method:to_padded_tensor:none
    method:to_padded_tensor:float_list method:to_padded_tensor:int_str method:triangular_solve:str
    method:triangular_solve:float method:triangular_solve:none method:triangular_solve:float_list
    method:triangular_solve:int_str
    """,
    # 40 cases
    FUNCTION_ATTRIBUTE: """
    function:batch_norm:int_str function:bilinear:int_str function:binary_cross_entropy_with_logits:str
    function:binary_cross_entropy_with_logits:float function:binary_cross_entropy_with_logits:none
    function:binary_cross_entropy_with_logits:float_list function:binary_cross_entropy_with_logits:int_str
    function:binomial:str function:binomial:float function:binomial:none function:binomial:float_list
    function:binomial:int_str function:cholesky_solve:float_list function:conv1d:str function:conv1d:float
    function:conv1d:none function:conv1d:float_list function:conv1d:int_str function:conv_transpose1d:str
    function:conv_transpose1d:float function:conv_transpose1d:none function:conv_transpose1d:float_list
    function:conv_transpose1d:int_str function:cosine_embedding_loss:int_str
    function:cumulative_trapezoid:float_list function:embedding_bag:str function:embedding_bag:float
    function:embedding_bag:none function:embedding_bag:float_list function:embedding_bag:int_str
    function:fill:float_list function:fill_:float_list function:hinge_embedding_loss:float_list
    function:instance_norm:str_only function:lu_unpack:float_list function:margin_ranking_loss:int_str
    function:norm_except_dim:str_only function:trapezoid:float_list function:trapz:float_list
    function:triplet_margin_loss:int_str
    """,
    # 18 cases
    NOT_IMPLEMENTED: """
    method:to_sparse_bsc:int_str method:to_sparse_bsr:int_str method:to_sparse_csc:str method:to_sparse_csc:float
    method:to_sparse_csc:float_list method:to_sparse_csr:str method:to_sparse_csr:float
    method:to_sparse_csr:float_list function:hspmm:str function:hspmm:float function:hspmm:none
    function:hspmm:float_list function:native_norm:str function:native_norm:dim_str function:native_norm:none
    function:native_norm:float_list function:native_norm:int_str function:native_norm:str_only
    """,
    # 7 cases
    NUMBER_CONVERSION: """
    method:bernoulli:str method:diagonal_scatter:int_str method:pinverse:str method:to_sparse_bsc:str
    method:to_sparse_bsr:str function:adaptive_avg_pool1d:str function:adaptive_max_pool1d:str
    """,
    # 13 cases
    NO_DEVICE: """
    method:cuda:int_str method:ipu:float method:ipu:float_list method:ipu:int_str method:mtia:str method:mtia:float
    method:mtia:float_list method:mtia:int_str method:type:int_str method:xpu:str method:xpu:float
    method:xpu:float_list method:xpu:int_str
    """,
}

KNOWN = {case: reason for reason, cases in _LISTS.items() for case in cases.split()}
