# An optax chain with a hand-written step-decay schedule: the schedule turns the step count into a Python
# int to index its milestone table, but optax evaluates schedules inside the jitted update where the count
# is a tracer, so int() raises a ConcretizationTypeError.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

MILESTONES = [0, 100, 250, 500]
FACTORS = [1.0, 0.3, 0.1, 0.03]
BASE_LR = 3e-3


def step_decay(count):
    epoch = int(count) // 10  # ten steps per epoch
    factor = FACTORS[0]
    for milestone, f in zip(MILESTONES, FACTORS):
        if epoch >= milestone:
            factor = f
    return BASE_LR * factor


class ConvNet(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(8, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(16, (3, 3))(x))
        x = x.mean(axis=(1, 2))
        return nn.Dense(10)(x)


def main():
    rng = np.random.default_rng(0)
    images = jnp.asarray(rng.uniform(size=(32, 12, 12, 1)), jnp.float32)
    labels = jnp.asarray(rng.integers(0, 10, size=(32,)))
    model = ConvNet()
    params = model.init(jax.random.PRNGKey(0), images[:1])["params"]
    print("lr at step 0:", step_decay(0))
    tx = optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.scale_by_adam(),
        optax.add_decayed_weights(5e-4),
        optax.scale_by_schedule(step_decay),
        optax.scale(-1.0),
    )
    opt_state = tx.init(params)

    def loss_fn(params):
        logits = model.apply({"params": params}, images)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    @jax.jit
    def step(params, opt_state):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    for i in range(3):
        params, opt_state, loss = step(params, opt_state)
        print(i, float(loss))


if __name__ == "__main__":
    main()
