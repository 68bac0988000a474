# A linen policy network with two heads chosen per batch by nn.cond: a discrete head for the "grid" task and a
# continuous head for the "reach" task. The continuous head returns mean and log-std concatenated (8 values)
# while the discrete head returns 4 logits, so lax.cond's branch output types differ.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax


class Trunk(nn.Module):
    @nn.compact
    def __call__(self, obs):
        x = nn.relu(nn.Dense(32)(obs))
        return nn.relu(nn.Dense(32)(x))


class Policy(nn.Module):
    actions: int = 4

    @nn.compact
    def __call__(self, obs, continuous):
        h = Trunk()(obs)
        discrete_head = nn.Dense(self.actions, name="logits")
        mean_head = nn.Dense(self.actions, name="mean")
        log_std = self.param("log_std", nn.initializers.zeros, (self.actions,))

        def discrete(module, h):
            return discrete_head(h)

        def gaussian(module, h):
            mean = mean_head(h)
            return jnp.concatenate([mean, jnp.broadcast_to(log_std, mean.shape)], axis=-1)

        if self.is_initializing():  # create both heads' parameters
            return discrete(self, h) + gaussian(self, h)[..., :self.actions]
        return nn.cond(continuous, gaussian, discrete, self, h)


def policy_loss(params, model, obs, advantages, continuous):
    out = model.apply({"params": params}, obs, continuous)
    return -jnp.mean(out.sum(-1) * advantages)


def main():
    rng = np.random.default_rng(0)
    model = Policy()
    obs = jnp.asarray(rng.normal(size=(16, 6)), jnp.float32)
    params = model.init(jax.random.PRNGKey(0), obs, False)["params"]
    tx = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(3e-4))
    opt_state = tx.init(params)

    @jax.jit
    def update(params, opt_state, obs, advantages, continuous):
        loss, grads = jax.value_and_grad(policy_loss)(params, model, obs, advantages, continuous)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    for step in range(3):
        advantages = jnp.asarray(rng.normal(size=(16,)), jnp.float32)
        params, opt_state, loss = update(params, opt_state, obs, advantages, jnp.asarray(step % 2 == 1))
        print(step, float(loss))


if __name__ == "__main__":
    main()
