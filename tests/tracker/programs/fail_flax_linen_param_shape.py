# A linen MLP classifier trained with optax: the model is initialised on 28x28 images, then the training
# loop feeds 32x32 images from a padded loader, so the first Dense layer's kernel (784, 64) meets a
# (batch, 1024) input. Flax itself raises (ScopeParamShapeError, inside the jitted train step), so no
# pure-JAX program can raise it: the tracker's repro must say it does not reproduce and save the fallback.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax


class MLP(nn.Module):
    hidden: int = 64
    classes: int = 10

    @nn.compact
    def __call__(self, x):
        x = x.reshape((x.shape[0], -1))
        x = nn.relu(nn.Dense(self.hidden, name="in_proj")(x))
        x = nn.relu(nn.Dense(self.hidden, name="mid")(x))
        return nn.Dense(self.classes, name="head")(x)


def make_batches(rng, n_batches, batch, size, pad):
    for _ in range(n_batches):
        images = rng.uniform(size=(batch, size, size)).astype(np.float32)
        images = np.pad(images, ((0, 0), (pad, pad), (pad, pad)))  # the loader's augmentation padding
        labels = rng.integers(0, 10, size=(batch,))
        yield jnp.asarray(images), jnp.asarray(labels)


def loss_fn(params, model, images, labels):
    logits = model.apply({"params": params}, images)
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean(), logits


def make_step(model, tx):
    @jax.jit
    def train_step(params, opt_state, images, labels):
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, model, images, labels)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
        return params, opt_state, loss, accuracy
    return train_step


def main():
    rng = np.random.default_rng(0)
    model = MLP()
    params = model.init(jax.random.PRNGKey(0), jnp.zeros((1, 28, 28)))["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-3))
    opt_state = tx.init(params)
    train_step = make_step(model, tx)
    for step, (images, labels) in enumerate(make_batches(rng, 3, 16, 28, pad=2)):
        params, opt_state, loss, acc = train_step(params, opt_state, images, labels)
        print(f"step {step}: loss {float(loss):.3f} acc {float(acc):.2f}")


if __name__ == "__main__":
    main()
