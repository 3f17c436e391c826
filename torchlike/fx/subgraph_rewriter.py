"""torchlike.fx.subgraph_rewriter: ``replace_pattern``, which finds every occurrence of a small traced pattern
in a GraphModule's graph and swaps in a replacement.

Matching starts at the node the pattern returns and walks its arguments back to the pattern's inputs: each
pattern node must have the same op, target and literal arguments as the graph node, pattern inputs bind to any
graph value (consistently), and a matched intermediate node may have no users outside the match.  Patterns are
straight-line code with one output.

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x) * 2)
    >>> def pattern(a):
    ...     return torchlike.relu(a)
    >>> def replacement(a):
    ...     return torchlike.sigmoid(a)
    >>> len(torchlike.fx.replace_pattern(gm, pattern, replacement))
    1
    >>> [n.target.__name__ for n in gm.graph.nodes if n.op == "call_function"]
    ['sigmoid', 'mul']
"""
from __future__ import annotations

from typing import NamedTuple

from ._symbolic_trace import symbolic_trace
from .graph_module import GraphModule, _copy_attr
from .node import Node

__all__ = ["replace_pattern", "Match"]


class Match(NamedTuple):
    """One occurrence: ``anchor`` (the pattern's output node) and ``nodes_map`` (pattern node -> graph node).

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x) + 1)
    >>> m, = torchlike.fx.replace_pattern(gm, lambda a: torchlike.relu(a), lambda a: torchlike.sigmoid(a))
    >>> m.anchor.name, sorted(n.name for n in m.nodes_map.values())
    ('relu', ['relu', 'x'])
    """
    anchor: Node
    nodes_map: dict


def _same_literal(p, g):
    if isinstance(p, (list, tuple)) and isinstance(g, (list, tuple)):
        return type(p) is type(g) and len(p) == len(g) and all(_same_literal(a, b) for a, b in zip(p, g))
    return not isinstance(g, Node) and type(p) is type(g) and p == g


def _match(pn, gn, m):
    if pn in m:
        return m[pn] is gn
    if pn.op == "placeholder":
        m[pn] = gn
        return True
    if not isinstance(gn, Node) or pn.op != gn.op or pn.target != gn.target:
        return False
    if len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
        return False
    m[pn] = gn
    pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
    return all(_match_arg(p, g, m) for p, g in pairs)


def _match_arg(p, g, m):
    if isinstance(p, Node):
        return isinstance(g, Node) and _match(p, g, m)
    if isinstance(p, (list, tuple)) and isinstance(g, (list, tuple)) and len(p) == len(g):
        return all(_match_arg(a, b, m) for a, b in zip(p, g))
    return _same_literal(p, g)


def replace_pattern(gm, pattern, replacement):
    """Replace each non-overlapping occurrence of ``pattern`` (a function or Module, traced here) in ``gm``'s
    graph with ``replacement`` (traced likewise, same inputs); recompiles ``gm`` and returns the Matches."""
    p_gm = pattern if isinstance(pattern, GraphModule) else symbolic_trace(pattern)
    r_gm = replacement if isinstance(replacement, GraphModule) else symbolic_trace(replacement)
    p_nodes = list(p_gm.graph.nodes)
    p_inputs = [n for n in p_nodes if n.op == "placeholder"]
    p_body = [n for n in p_nodes if n.op not in ("placeholder", "output")]
    p_anchor = next(n for n in p_nodes if n.op == "output").args[0]
    if not isinstance(p_anchor, Node):
        raise NotImplementedError("replace_pattern: the pattern must return one value computed by it")
    graph = gm.graph
    matches, taken = [], set()
    for node in list(graph.nodes):
        m = {}
        if node in taken or not _match(p_anchor, node, m):
            continue
        inner = [m[p] for p in p_body]
        if any(n in taken for n in inner):
            continue
        if any(u not in inner for p in p_body if p is not p_anchor for u in m[p].users):
            continue  # an intermediate value is used elsewhere: it cannot be removed
        taken.update(inner)
        matches.append(Match(anchor=p_anchor, nodes_map=m))
    r_inputs = [n for n in r_gm.graph.nodes if n.op == "placeholder"]
    for match in matches:
        m = match.nodes_map
        val_map = {r: m[p] for r, p in zip(r_inputs, p_inputs)}
        anchor = m[p_anchor]
        # (torch inserts the replacement before the anchor's first user)
        with graph.inserting_before(next(iter(anchor.users), anchor._next)):
            out = graph.graph_copy(r_gm.graph, val_map)
        anchor.replace_all_uses_with(out)
        for p in reversed(p_body):
            graph.erase_node(m[p])
    for n in r_gm.graph.nodes:
        if n.op in ("get_attr", "call_module") and not hasattr(gm, n.target.split(".")[0]):
            _copy_attr(r_gm, gm, n.target)
    gm.recompile()
    return matches
