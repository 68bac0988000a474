# A custom_jvp rule nested in another custom_jvp's primal: the outer primal defines ``inner`` (whose
# rule closes over ``scale``, a value the outer primal computed) and differentiates it with jax.jvp;
# the inner rule returns a tangent of the wrong shape.
import jax
import jax.numpy as jnp


@jax.custom_jvp
def outer(x):
    scale = jnp.sum(x) * 2.0

    @jax.custom_jvp
    def inner(y):
        return jnp.sin(y) * scale

    @inner.defjvp
    def inner_rule(primals, tangents):
        (y,), (t,) = primals, tangents
        return inner(y), scale * jnp.cos(y)[:2] * t

    _, slope = jax.jvp(inner, (x,), (jnp.ones_like(x),))
    return slope


@outer.defjvp
def outer_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    return outer(x), -t


print(jax.jacfwd(outer)(jnp.ones(3)))
