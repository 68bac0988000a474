import optax

tx = optax.adam(1.0)
tx.update({"a": 0.0, "b": 0.0}, tx.init({"a": 0.0}))
