"""The computed-values pass: a sandboxed capture run records what expressions produced (reprokit.values), and
the pass replaces them by constructors of the same kind, with the statements that only fed them."""

from __future__ import annotations

import json
import textwrap

import libcst as cst
import pytest

import reducer
from reducer.execution.environment import routing_head
from reducer.execution.pool import PoolExecutor
from reducer.judging.observe import Observer
from reducer.search.passes import ComputedValuesPass, default_passes, observing
from reducer.search.passes.computed import instrument, targets
from reducer.search.size import count_tokens
from reprokit.values import REPORT_TYPE, ValueFact, envelope, facts_from_report

TIMEOUT = 60.0

PROGRAM = textwrap.dedent('''\
    import io
    import numpy as np
    import jax
    import jax.numpy as jnp

    class Env:
        def reset(self):
            return jnp.zeros(3)

    buf = io.BytesIO()
    np.savez(buf, w=np.ones(2, np.float32))
    data = np.load(io.BytesIO(buf.getvalue()))
    cfg = {"n": 5, "name": "x"}
    obs = Env().reset()
    w = data["w"]
    double = jax.jit(lambda v: v * 2.0)
    y = double(obs)
    print(obs.shape, w, cfg["n"])
''')

PROBED = textwrap.dedent('''\
    import io
    import numpy as np
    import jax
    import jax.numpy as jnp

    class Env:
        def reset(self):
            return __jr_probe__(0, jnp.zeros(3))

    buf = __jr_probe__(1, io.BytesIO())
    np.savez(__jr_probe__(2, buf), w=__jr_probe__(3, np.ones(2, __jr_probe__(4, np.float32))))
    data = __jr_probe__(5, np.load(__jr_probe__(6, io.BytesIO(__jr_probe__(7, buf.getvalue())))))
    cfg = {"n": 5, "name": "x"}
    obs = __jr_probe__(8, Env().reset())
    w = __jr_probe__(9, __jr_probe__(10, data)["w"])
    double = __jr_probe__(11, jax.jit(lambda v: __jr_probe__(12, v) * 2.0))
    y = __jr_probe__(13, double(__jr_probe__(14, obs)))
    print(__jr_probe__(15, __jr_probe__(16, obs).shape), __jr_probe__(17, w), __jr_probe__(18, __jr_probe__(19, cfg)["n"]))
''')

F32_3 = ValueFact("jax", shape=(3,), dtype="float32")
NPZ = ValueFact("other", type_name="numpy.lib.npyio.NpzFile")
BYTESIO = ValueFact("other", type_name="_io.BytesIO")
W = ValueFact("numpy", shape=(2,), dtype="float32")
CFG = ValueFact("dict", keys=("'n'", "'name'"), items=(ValueFact("scalar", literal="5"), ValueFact("str", literal="'x'")))
FACTS = {
    0: F32_3, 1: BYTESIO, 2: BYTESIO, 3: W, 4: ValueFact("other", type_name="builtins.type"), 5: NPZ,
    6: BYTESIO, 7: ValueFact("other", type_name="builtins.bytes"), 8: F32_3, 9: W, 10: NPZ,
    11: ValueFact("other", type_name="jaxlib._jax.PjitFunction"), 12: ValueFact("tracer", shape=(3,), dtype="float32"),
    13: F32_3, 14: F32_3, 15: ValueFact("tuple", items=(ValueFact("scalar", literal="3"),)), 16: F32_3, 17: W,
    18: ValueFact("scalar", literal="5"), 19: CFG,
}


def test_instrumentation_wraps_the_replaceable_expressions_only():
    module = cst.parse_module(PROGRAM)
    nodes = targets(module).nodes
    assert instrument(module, nodes) == PROBED


def test_a_capture_run_reports_the_facts_through_the_pool(pool):
    """The probed program runs on the warm pool (sandboxed as every candidate) and the facts come back."""
    assert Observer(pool, TIMEOUT)(PROBED) == FACTS


def test_a_capture_run_in_a_fresh_interpreter_reports_the_same(fresh):
    assert Observer(fresh, TIMEOUT)(PROBED) == FACTS


def test_facts_are_reported_when_the_program_fails_and_not_when_it_crashes(pool):
    failing = "x = __jr_probe__(0, [1, 2.5, None])\n__jr_probe__(1, x)[0] @ 2\n"
    facts = Observer(pool, TIMEOUT)(failing)
    assert facts == {0: ValueFact("list", items=(ValueFact("scalar", literal="1"), ValueFact("scalar", literal="2.5"),
                                                 ValueFact("none"))),
                     1: facts[0]}
    crashing = "import os\nx = __jr_probe__(0, 1)\nos._exit(3)\n"
    observer = Observer(pool, TIMEOUT)
    assert observer(crashing) is None
    assert (observer.runs, observer.failed) == (1, 1)


@pytest.mark.parametrize("where", ["pool", "fresh"])
def test_a_string_naming_the_runs_own_directory_is_no_constant(where, request):
    """A path under the capture run's private directory differs from run to run: offered as a constant, it
    would make the candidates (and perhaps the result) differ between two reductions of the same input."""
    probed = ("import os, tempfile\n"
              "a = __jr_probe__(0, os.path.join(tempfile.gettempdir(), 'train.jsonl'))\n"
              "b = __jr_probe__(1, {'path': os.getcwd(), 'name': 'train.jsonl'})\n"
              "c = __jr_probe__(2, os.path.join('data', 'train.jsonl'))\n")
    facts = Observer(request.getfixturevalue(where), TIMEOUT)(probed)
    assert facts == {0: ValueFact("other", type_name="builtins.str"),
                     1: ValueFact("dict", keys=("'path'", "'name'"), items=(
                         ValueFact("other", type_name="builtins.str"), ValueFact("str", literal="'train.jsonl'"))),
                     2: ValueFact("str", literal="'data/train.jsonl'")}


def test_fact_records_round_trip_through_json():
    for fact in FACTS.values():
        assert ValueFact.from_json(fact.to_json()) == fact
    message = json.dumps({"3": CFG.to_json()})
    assert facts_from_report(REPORT_TYPE, message) == {3: CFG}
    assert facts_from_report("TypeError", message) is None
    assert facts_from_report(REPORT_TYPE, "not json") is None


def test_envelope_runs_the_probed_source_as_given():
    assert envelope("x = 1\n") == "import reprokit.values\nreprokit.values.run_probed('x = 1\\n')\n"
    assert envelope("import os\nx = 1\n", "import os\n") == (
        "import os\nimport reprokit.values\nreprokit.values.run_probed('x = 1\\n')\n")
    with pytest.raises(ValueError):
        envelope("x = 1\n", "import os\n")


def test_the_leading_lines_that_decide_where_a_program_runs():
    flags = 'os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\n'
    assert routing_head(f'"""doc"""\nimport os\n{flags}import jax\nx = 1\n') == f'"""doc"""\nimport os\n{flags}'
    update = 'jax.config.update("jax_num_cpu_devices", 4)\n'
    imports = "import jax\nimport numpy as np\n"
    assert routing_head(f"{imports}{update}x = 1\n") == f"{imports}{update}"
    assert routing_head(f"import os\r\n{flags}") == f"import os\r\n{flags}"  # Python's line ends, whatever they are
    for nothing in ("import jax\nx = 1\n", f"x = 1\nimport os\n{flags}", f"import flax\n{update}", "def (:\n"):
        assert routing_head(nothing) == ""


def test_a_capture_of_a_program_that_sets_its_devices_runs_warm_where_its_candidates_do():
    """Found on heavy program 05 (XLA_FLAGS for 4 devices in its first lines): inside the envelope's string the
    pool saw a program touching the environment without the prelude its workers started with, so every
    capture went to a fresh interpreter (0.65 s each, 12 s of that reduction, where its candidates take
    40 ms). With the prelude in front of the envelope, captures run on the warm workers and see 4 devices."""
    flags = "--xla_force_host_platform_device_count=4"
    probed = (f"import os\nos.environ['XLA_FLAGS'] = {flags!r}\nimport jax\n"
              "n = __jr_probe__(0, jax.device_count())\nx = __jr_probe__(1, jax.numpy.ones(n))\n")
    pool = PoolExecutor(1, prelude={"XLA_FLAGS": flags}, cpu_devices=4)
    try:
        facts = Observer(pool, TIMEOUT)(probed)
    finally:
        pool.close()
    assert facts == {0: ValueFact("scalar", literal="4"), 1: ValueFact("jax", shape=(4,), dtype="float32")}
    assert (pool.stats.in_place, pool.stats.fresh_fallbacks) == (1, 0)


def test_the_pass_offers_constructors_and_cuts_what_fed_them(pool):
    module = cst.parse_module(PROGRAM)
    pass_ = ComputedValuesPass(Observer(pool, TIMEOUT))
    edits = pass_.edits(module)
    empty = cst.Module([])
    described = [(module.code_for_node(e.node), empty.code_for_node(e.replacement),
                  [module.code_for_node(n).strip() for n, _ in e.extra]) for e in edits]
    assert described == [
        ("Env().reset()", "jnp.zeros(3)", ["class Env:\n    def reset(self):\n        return jnp.zeros(3)"]),
        ("Env().reset()", "jnp.zeros(3)", []),
        ('data["w"]', "np.zeros(2, np.float32)",
         ["data = np.load(io.BytesIO(buf.getvalue()))", "buf = io.BytesIO()", "np.savez(buf, w=np.ones(2, np.float32))"]),
        ("double(obs)", "jnp.zeros(3)", ["double = jax.jit(lambda v: v * 2.0)"]),
        ("w", "np.zeros(2, np.float32)", ['w = data["w"]', "data = np.load(io.BytesIO(buf.getvalue()))",
                                          "buf = io.BytesIO()", "np.savez(buf, w=np.ones(2, np.float32))"]),
        ('cfg["n"]', "5", ['cfg = {"n": 5, "name": "x"}']),
        ('cfg["n"]', "5", []),
        ("cfg", "{'n': 5, 'name': 'x'}", ['cfg = {"n": 5, "name": "x"}']),
    ]
    chosen = [edits[1], edits[2], edits[6]]
    assert pass_.apply(module, chosen).code == textwrap.dedent('''\
        import io
        import numpy as np
        import jax
        import jax.numpy as jnp

        class Env:
            def reset(self):
                return jnp.zeros(3)
        cfg = {"n": 5, "name": "x"}
        obs = jnp.zeros(3)
        w = np.zeros(2, np.float32)
        double = jax.jit(lambda v: v * 2.0)
        y = double(obs)
        print(obs.shape, w, 5)
    ''')


def test_a_container_too_big_to_build_becomes_its_entries_emptied_with_what_computed_it(pool):
    """A model's parameters built in a loop: their exact constructor is bigger than the class that computes
    them, so their first entry, emptied, stands in, and then every entry emptied, taking the class with it (a
    structure mismatch may need no more, or as many keys); where nothing is freed (`params` in print: params
    is still read) nothing of the kind is offered."""
    module = cst.parse_module(textwrap.dedent('''\
        import jax.numpy as jnp

        class Model:
            def init(self):
                return {f"layer{i}": {"w": jnp.zeros((2, 2)), "b": jnp.zeros(2)} for i in range(6)}

        params = Model().init()
        print(len(params), params)
    '''))
    pass_ = ComputedValuesPass(Observer(pool, TIMEOUT))
    edits = pass_.edits(module)
    empty = cst.Module([])
    described = [(module.code_for_node(e.node), empty.code_for_node(e.replacement),
                  [module.code_for_node(n).strip().split("\n")[0] for n, _ in e.extra]) for e in edits]
    every = "{" + ", ".join(f"'layer{i}': {{}}" for i in range(6)) + "}"
    assert described == [("Model().init()", "{'layer0': {}}", ["class Model:"]),
                         ("Model().init()", every, ["class Model:"]),
                         ("len(params)", "6", [])]
    assert pass_.apply(module, edits[:1]).code == (
        "import jax.numpy as jnp\n\nparams = {'layer0': {}}\nprint(len(params), params)\n")
    assert pass_.apply(module, edits[1:2]).code == (
        f"import jax.numpy as jnp\n\nparams = {every}\nprint(len(params), params)\n")


def test_a_replacement_imports_what_it_names():
    """An alias the program has is reused (`jax.numpy` through `import jax`); a missing module is imported."""
    module = cst.parse_module('"""doc"""\nfrom __future__ import annotations\nimport jax\nx = f(a, b, c, d, e)\ny = g(a, b, c, d, e)\n')
    facts = {0: ValueFact("jax", shape=(2,), dtype="float32"), 6: ValueFact("numpy", shape=(), dtype="float64")}
    pass_ = ComputedValuesPass(lambda probed: facts)
    edits = pass_.edits(module)
    assert pass_.apply(module, [e for e in edits if not e.extra]).code == (
        '"""doc"""\nfrom __future__ import annotations\nimport numpy as np\nimport jax\n'
        'x = jax.numpy.zeros(2)\ny = np.zeros(())\n')


def test_weak_types_and_tracers_keep_their_kind():
    from reducer.search.passes.computed import Spelling, constructor

    spelling = Spelling("jnp", "np", ())
    assert constructor(ValueFact("tracer", shape=(4, 2), dtype="float32", weak_type=True), spelling)[0] == "jnp.full((4, 2), 0.0)"
    assert constructor(ValueFact("jax", dtype="int32", weak_type=True), spelling)[0] == "jnp.asarray(0)"
    assert constructor(ValueFact("jax", dtype="float32"), spelling)[0] == "jnp.float32(0)"
    assert constructor(ValueFact("numpy-scalar", dtype="int64"), spelling)[0] == "np.int64(0)"
    assert constructor(ValueFact("other", type_name="x.Y"), spelling) is None


def test_without_an_observer_the_pass_proposes_nothing_and_is_bound_by_observing():
    module = cst.parse_module(PROGRAM)
    assert ComputedValuesPass().edits(module) == []
    bound = observing(default_passes(), lambda probed: None)
    computed = [p for p in bound if p.name == "computed-values"]
    assert len(computed) == 1 and computed[0].observe is not None and computed[0].edits(module) == []
    names = [p.name for p in default_passes()]
    assert names.index("computed-values") < names.index("statements") < names.index("inline")


ENV_PROGRAM = textwrap.dedent('''\
    import io

    import numpy as np
    import jax
    import jax.numpy as jnp


    class Env:
        def __init__(self, obs_dim, n_actions=4):
            self.obs_dim = obs_dim
            self.n_actions = n_actions
            self.t = 0

        def reset(self):
            self.t = 0
            return self._obs()

        def _obs(self):
            return jnp.zeros(self.obs_dim) + self.t


    def save_params(params):
        buf = io.BytesIO()
        np.savez(buf, **params)
        return buf.getvalue()


    def load_params(blob):
        data = np.load(io.BytesIO(blob))
        return {k: data[k] for k in data.files if k}


    def init_params(key, obs_dim, hidden):
        k1, k2 = jax.random.split(key)
        return {
            "w": np.asarray(jax.random.normal(k1, (obs_dim + 2, hidden))),
            "b": np.asarray(jax.random.normal(k2, (hidden,))),
        }


    def policy(params, obs):
        h = obs @ params["w"] + params["b"]
        return jax.nn.softmax(h)


    def main():
        config = {"obs_dim": 10, "hidden": 3, "seed": 0}
        params = init_params(jax.random.PRNGKey(config["seed"]), config["obs_dim"], config["hidden"])
        params = load_params(save_params(params))
        env = Env(obs_dim=config["obs_dim"])
        obs = env.reset()
        probs = policy(params, obs)
        print(probs.sum())


    main()
''')
ENV_MINIMAL = "import jax.numpy as jnp\njnp.ones(10) @ jnp.ones((12, 3))\n"


def test_a_small_real_program_reduces_within_twice_its_minimal(tmp_path, pool):
    path = tmp_path / "env.py"
    path.write_text(ENV_PROGRAM)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    computed = next(p for p in result.passes if p.name == "computed-values")
    assert computed.successes >= 1 and computed.tokens_removed > 0
    assert result.disagreements == 0
    assert result.tokens_after <= 2 * count_tokens(ENV_MINIMAL)


def test_a_replaced_call_takes_the_top_level_definitions_only_it_used():
    """`rule(x)` -> its value: `rule`'s def (decorator included) and `rule.defvjp(...)` go with it, and
    `helper`, which only `rule`'s body read; `keep`, also read elsewhere, stays."""
    module = cst.parse_module(textwrap.dedent('''\
        import jax
        def helper(v):
            return v
        def keep(v):
            return v
        @jax.custom_vjp
        def rule(v):
            return helper(keep(v))
        rule.defvjp(None, None)
        y = rule(1.0) + keep(2.0)
    '''))
    nodes = targets(module).nodes
    k = [module.code_for_node(n) for n in nodes].index("rule(1.0)")
    pass_ = ComputedValuesPass(lambda probed: {k: ValueFact("jax", dtype="float32", weak_type=True)})
    edit = next(e for e in pass_.edits(module) if e.extra)
    assert pass_.apply(module, [edit]).code == textwrap.dedent('''\
        import jax
        def keep(v):
            return v
        y = jax.numpy.asarray(0.0) + keep(2.0)
    ''')


LOOP_PROGRAM = textwrap.dedent('''\
    import jax
    import numpy as np
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    for k, c in zip(keys, np.arange(3)):
        pool = np.ones(c + 1)
        jax.random.choice(k, len(pool), (2,), replace=False)
    for i in range(3):
        if i:
            break
''')


def test_a_loop_becomes_one_pass_with_the_variables_its_body_reads_bound_to_their_values(pool):
    """`k` (read by the body) is bound to a key of the kind the capture saw, `c` too; the iterable and
    `keys`, which only it read, go. The loop holding `break` is offered nothing (its body alone would not
    compile)."""
    module = cst.parse_module(LOOP_PROGRAM)
    pass_ = ComputedValuesPass(Observer(pool, TIMEOUT))
    loops = [e for e in pass_.edits(module) if isinstance(e.node, cst.For)]
    assert len(loops) == 1
    assert pass_.apply(module, loops).code == textwrap.dedent('''\
        import jax
        import numpy as np
        k = jax.numpy.zeros(2, jax.numpy.uint32)
        c = np.int64(0)
        pool = np.ones(c + 1)
        jax.random.choice(k, len(pool), (2,), replace=False)
        for i in range(3):
            if i:
                break
    ''')


def test_loop_variables_the_body_does_not_read_are_not_bound():
    module = cst.parse_module("import jax\nfor i, x in enumerate(xs):\n    y = f(x) + g(x)\n")
    nodes = targets(module).nodes
    facts = {k: ValueFact("jax", shape=(2,), dtype="float32") for k, n in enumerate(nodes)
             if isinstance(n, cst.Name) and n.value == "x"}
    pass_ = ComputedValuesPass(lambda probed: facts)
    loops = [e for e in pass_.edits(module) if isinstance(e.node, cst.For)]
    assert pass_.apply(module, loops).code == "import jax\nx = jax.numpy.zeros(2)\ny = f(x) + g(x)\n"


def test_a_capture_keeps_the_first_value_of_each_expression(pool):
    """The third pass of a loop raises; the facts are the first pass's (see reprokit.values.Probe for why)."""
    probed = ("import jax.numpy as jnp\n"
              "for n in [3, 4, 5]:\n"
              "    x = __jr_probe__(0, jnp.zeros(__jr_probe__(1, n)))\n"
              "    if n == 5:\n"
              "        raise ValueError(n)\n")
    assert Observer(pool, TIMEOUT)(probed) == {0: ValueFact("jax", shape=(3,), dtype="float32"),
                                               1: ValueFact("scalar", literal="3")}


def test_a_while_condition_is_not_replaced():
    """`while step < cfg["steps"]` with `step` constant loops until the candidate's timeout."""
    module = cst.parse_module('step = 0\nwhile step < cfg["steps"]:\n    step = f(step)\n')
    assert [module.code_for_node(n) for n in targets(module).nodes] == ["f(step)", "step"]


def test_typed_keys_are_facts_and_their_constructors_build_keys_of_the_same_kind(pool):
    """Typed keys (concrete, split, traced, another implementation) get `jax.random.key` constructors; a raw
    key is a uint32 array like any other. Each constructor, run, gives back the fact it was built from."""
    from reducer.search.passes.computed import Spelling, constructor

    probed = ("import jax\n"
              "k = __jr_probe__(0, jax.random.split(jax.random.key(1), 3))\n"
              "jax.jit(lambda key: __jr_probe__(1, key))(k[0])\n"
              "__jr_probe__(2, jax.random.key(7, impl='rbg'))\n"
              "__jr_probe__(3, jax.random.key_data(k[1]))\n"
              "__jr_probe__(4, jax.random.split(k[2], (2, 3)))\n")
    facts = Observer(pool, TIMEOUT)(probed)
    assert facts == {0: ValueFact("key", shape=(3,), dtype="key<fry>"), 1: ValueFact("key", dtype="key<fry>"),
                     2: ValueFact("key", dtype="key<rbg>"), 3: ValueFact("jax", shape=(2,), dtype="uint32"),
                     4: ValueFact("key", shape=(2, 3), dtype="key<fry>")}
    built = [constructor(facts[k], Spelling("jnp", "np", ()))[0] for k in range(5)]
    assert built == ["jax.random.split(jax.random.key(0), 3)", "jax.random.key(0)", "jax.random.key(0, impl='rbg')",
                     "jnp.zeros(2, jnp.uint32)", "jax.random.split(jax.random.key(0), (2, 3))"]
    again = "import jax\nimport jax.numpy as jnp\n" + "".join(f"__jr_probe__({k}, {code})\n" for k, code in enumerate(built))
    assert Observer(pool, TIMEOUT)(again) == facts


KEY_PROGRAM = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp


    def init_params(key, sizes):
        keys = jax.random.split(key, len(sizes))
        params = []
        for k, (n_in, n_out) in zip(keys, zip(sizes[:-1], sizes[1:])):
            params.append(jax.random.normal(k, (n_in, n_out)) * 0.1)
        return params


    def noise_keys(seed):
        root = jax.random.key(seed)
        a, b, c = jax.random.split(root, 3)
        return a, b, c


    params = init_params(jax.random.key(1), [4, 8, 2])
    a, b, c = noise_keys(0)
    sub = a[0]
    x = jax.random.normal(sub, (3, 4))
    print(x @ params[0])
''')


def test_an_element_of_a_split_becomes_a_key_and_its_unpacking_goes(tmp_path, pool):
    """`a, b, c = split(...)` then `a[0]` (indexing a scalar key): only the run can see that `a` is a key
    like `jax.random.key(0)`; the unpacking line goes with it, as nothing reads `b` or `c`."""
    path = tmp_path / "keys.py"
    path.write_text(KEY_PROGRAM)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.signature.startswith("IndexError: Too many indices")
    assert result.source.endswith("\nimport jax\njax.random.key(0)[0]\n")
    computed = next(p for p in result.passes if p.name == "computed-values")
    assert computed.successes >= 1 and computed.tokens_removed > 0
    assert path.read_text() == KEY_PROGRAM


def test_an_unpacking_line_stays_while_another_of_its_names_is_read():
    module = cst.parse_module("import jax\na, b = f()\nprint(a[0], b)\n")
    nodes = targets(module).nodes
    k = [module.code_for_node(n) for n in nodes].index("a")
    pass_ = ComputedValuesPass(lambda probed: {k: ValueFact("key", dtype="key<fry>")})
    assert all(not edit.extra for edit in pass_.edits(module))
