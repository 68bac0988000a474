# Fine-tuning a linen classifier with optax: the optimiser state is created for the backbone's parameters,
# then a fresh classification head is added to the parameter tree, so adam's tree_map over the gradients and
# the first moment meets dicts with different keys (a pytree structure mismatch JAX raises).
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax


class Backbone(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(32, name="fc1")(x))
        return nn.relu(nn.Dense(16, name="fc2")(x))


class Classifier(nn.Module):
    classes: int = 3

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.classes, name="head")(Backbone(name="backbone")(x))


def pretrained_backbone(x):
    # stands in for restoring a checkpoint: only the backbone's weights exist
    return Backbone().init(jax.random.PRNGKey(1), x)["params"]


def main():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=(64, 10)), jnp.float32)
    labels = jnp.asarray(rng.integers(0, 3, size=(64,)))
    model = Classifier()
    backbone = pretrained_backbone(x[:1])
    tx = optax.chain(optax.add_decayed_weights(1e-4), optax.adam(1e-3))
    opt_state = tx.init({"backbone": backbone})  # before the head was added
    head = model.init(jax.random.PRNGKey(2), x[:1])["params"]["head"]
    params = {"backbone": backbone, "head": head}

    def loss_fn(params, x, labels):
        logits = model.apply({"params": params}, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    @jax.jit
    def step(params, opt_state, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    for epoch in range(3):
        params, opt_state, loss = step(params, opt_state, x, labels)
        print(epoch, float(loss))


if __name__ == "__main__":
    main()
