"""The cases of tests/test_argument_types.py whose exception type still differs from torch's, by reason.

Each is a strict xfail there: a fix makes it pass and fails the test until its line here goes.  Regenerate the
lists with ``python tests/test_argument_types.py --known``.
"""

NOT_REJECTED = ("torchlike takes the call: result_type skips a None (its internal callers pass optional operands), "
                "and batch_norm_stats runs on CPU tensors where torch's CPU build has no kernel")
METHOD_ATTRIBUTE = ("Tensor.index and to_padded_tensor are methods torchlike lacks (its NotImplementedError is an "
                    "AttributeError too)")

_LISTS = {
    # 2 cases
    NOT_REJECTED: """
    function:batch_norm_stats:float function:result_type:none
    """,
    # 2 cases
    METHOD_ATTRIBUTE: """
    method:index:int_str method:to_padded_tensor:float
    """,
}

KNOWN = {case: reason for reason, cases in _LISTS.items() for case in cases.split()}
