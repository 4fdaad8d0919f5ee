"""A toy fourth kind, "count to three", that lives in tests/ only (tests/test_toy_kind.py).

``engine`` is its pure engine (the contract of ``games.contract``), ``glue`` its Django glue
(``games.kinds``), ``templates/toy/table.html`` its table; ``TOY`` its registry entry.
"""

from games.registry import GameKind

TOY = GameKind(
    key="toy",
    name="Count to three",
    engine_module="tests.toy_count.engine",
    glue_module="tests.toy_count.glue",
    default_bot="random",
    summary="Two players take turns saying the next number; whoever says 3 wins.",
)
