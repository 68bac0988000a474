# A linen autoencoder with a straight-through quantiser written as a jax.custom_vjp inside the module: the
# forward rounds to a learned step size, the backward passes the gradient straight through. The primal takes
# (x, step) but the backward rule returns only the gradient for x, so JAX rejects the bwd output structure
# when the training step differentiates through it.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax


@jax.custom_vjp
def quantise(x, step):
    return jnp.round(x / step) * step


def quantise_fwd(x, step):
    return quantise(x, step), (x, step)


def quantise_bwd(residuals, g):
    x, step = residuals
    inside = jnp.abs(x) <= 127 * step
    return (jnp.where(inside, g, 0.0),)  # the step's cotangent was forgotten


quantise.defvjp(quantise_fwd, quantise_bwd)


class QuantisedAutoencoder(nn.Module):
    latent: int = 8

    @nn.compact
    def __call__(self, x):
        z = nn.Dense(self.latent, name="encoder")(nn.relu(nn.Dense(32)(x)))
        log_step = self.param("log_step", nn.initializers.constant(-3.0), ())
        z = quantise(z, jnp.exp(log_step))
        return nn.Dense(x.shape[-1], name="decoder")(nn.relu(nn.Dense(32)(z)))


def reconstruction_loss(params, model, x):
    return jnp.mean((model.apply({"params": params}, x) - x) ** 2)


def main():
    rng = np.random.default_rng(0)
    data = jnp.asarray(rng.normal(size=(128, 20)), jnp.float32)
    model = QuantisedAutoencoder()
    params = model.init(jax.random.PRNGKey(0), data[:1])["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(optax.exponential_decay(1e-3, 10, 0.9)))
    opt_state = tx.init(params)

    @jax.jit
    def step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(reconstruction_loss)(params, model, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    print("initial reconstruction", float(reconstruction_loss(params, model, data)))
    for epoch in range(2):
        for batch in data.reshape(4, 32, 20):
            params, opt_state, loss = step(params, opt_state, batch)
        print(epoch, float(loss))


if __name__ == "__main__":
    main()
