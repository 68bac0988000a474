import jax
jax.tree.map(lambda a, b: a, {"head_churn": 0, "head_price": 0, "trunk": 0}, {"head_price": 0, "trunk": 0})
