import jax
import jax.numpy as jnp


@jax.custom_jvp
def log_normalizer(q):
    return q.sum()


log_normalizer.defjvp(lambda primals, tangents: (log_normalizer(primals[0]), tangents[0]))
jax.grad(log_normalizer)(jnp.ones(2))
