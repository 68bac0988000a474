# custom_jvp with defjvps: one tangent rule returns the wrong shape.
import jax
import jax.numpy as jnp


@jax.custom_jvp
def scaled_softplus(x, s):
    return s * jnp.logaddexp(x, 0.0)


scaled_softplus.defjvps(lambda t, ans, x, s: s * jax.nn.sigmoid(x) * t,
                        lambda t, ans, x, s: jnp.sum(t * jnp.logaddexp(x, 0.0)))

print(scaled_softplus(jnp.ones(3), 2.0))
jax.jacfwd(scaled_softplus, argnums=1)(jnp.ones(3), 2.0)
