# A function a public JAX factory returned is public JAX too: jax.nn.initializers.orthogonal() called
# under jit with a 1-D shape raises inside the initializer. Without recording the initializer's call no
# JAX call failed, and no repro was saved.
import jax

init_w = jax.nn.initializers.orthogonal()
init_b = jax.nn.initializers.zeros


@jax.jit
def make_params(key):
    k1, k2 = jax.random.split(key)
    return {"w": init_w(k1, (4, 3)), "b": init_b(k2, (3,)), "scale": init_w(k2, (3,))}


print(make_params(jax.random.PRNGKey(0)))
