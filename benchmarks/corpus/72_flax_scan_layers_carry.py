# A deep linen MLP whose identical layers are stacked with nn.scan (one set of weights per layer, scanned
# over the depth axis). The layer's Dense uses a configurable width, and the config sets it to 2x the model
# width for "wider layers", so the carry grows from 16 to 32 features and lax.scan's carry check fails.
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

CONFIG = {"width": 16, "layer_width": 32, "depth": 4, "lr": 1e-2, "steps": 3}


class Layer(nn.Module):
    width: int

    @nn.compact
    def __call__(self, carry, _):
        h = nn.Dense(self.width)(nn.LayerNorm()(carry))
        return carry + nn.tanh(h) if h.shape == carry.shape else nn.tanh(h), None


class ScannedMLP(nn.Module):
    width: int
    layer_width: int
    depth: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.width)(x)
        stack = nn.scan(Layer, variable_axes={"params": 0}, split_rngs={"params": True},
                        length=self.depth)
        x, _ = stack(self.layer_width, name="layers")(x, None)
        return nn.Dense(1)(x)[:, 0]


def mse(params, model, x, y):
    return jnp.mean((model.apply({"params": params}, x) - y) ** 2)


@functools.partial(jax.jit, static_argnums=(0, 1))
def train_step(model, tx, params, opt_state, x, y):
    loss, grads = jax.value_and_grad(mse)(params, model, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def main():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=(64, 3)), jnp.float32)
    y = jnp.sin(x).sum(-1)
    model = ScannedMLP(CONFIG["width"], CONFIG["layer_width"], CONFIG["depth"])
    params = model.init(jax.random.PRNGKey(0), x[:1])["params"]
    tx = optax.sgd(CONFIG["lr"], momentum=0.9)
    opt_state = tx.init(params)
    for step in range(CONFIG["steps"]):
        params, opt_state, loss = train_step(model, tx, params, opt_state, x, y)
        print(step, float(loss))


if __name__ == "__main__":
    main()
