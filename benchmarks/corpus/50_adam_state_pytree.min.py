import jax

jax.tree.map(lambda a, b: a, {"a": 1}, {"a": 1, "b": 1})
