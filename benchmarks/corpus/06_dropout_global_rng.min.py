import jax

key = jax.random.PRNGKey(0)


@jax.jit
def f(x):
    global key
    key, _ = jax.random.split(key)
    return x


f(1.0)
jax.random.split(key)
