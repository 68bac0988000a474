"""Maximum-likelihood fit of a categorical distribution in natural parameters, with a custom_jvp log-normalizer.

Modelled on https://github.com/jax-ml/jax/issues/2502 (a custom_jvp rule for a
log-normalizer whose tangent output has the wrong shape; mattjj: "It's actually
a shape error"): the rule returns `softmax(q) * q_dot` without summing.
"""
import jax
import jax.numpy as jnp
import numpy as np

FIT = {"categories": 5, "samples": 500, "lr": 1.0, "iters": 4, "seed": 13}


@jax.custom_jvp
def log_normalizer(q):
    return jax.scipy.special.logsumexp(q)


def nat_to_exp(q):
    return jax.nn.softmax(q)


@log_normalizer.defjvp
def log_normalizer_jvp(primals, tangents):
    q, = primals
    q_dot, = tangents
    y = log_normalizer(q)
    y_dot = nat_to_exp(q) * q_dot
    return y, y_dot


def cross_entropy_loss(p, q):
    """Cross entropy between expectation params p and the family with natural params q."""
    p_dot_q = jnp.sum(p * q)
    return -p_dot_q + log_normalizer(q)


def empirical_frequencies(cfg):
    rng = np.random.default_rng(cfg["seed"])
    true_probs = rng.dirichlet(np.ones(cfg["categories"]) * 2.0)
    draws = rng.choice(cfg["categories"], size=cfg["samples"], p=true_probs)
    freq = np.bincount(draws, minlength=cfg["categories"]) / cfg["samples"]
    return jnp.asarray(true_probs, jnp.float32), jnp.asarray(freq, jnp.float32)


def kl(p, q_probs):
    return float(jnp.sum(jnp.where(p > 0, p * (jnp.log(p) - jnp.log(q_probs)), 0.0)))


def report(step, q, p):
    probs = nat_to_exp(q)
    print(f"[iter {step}] loss={float(cross_entropy_loss(p, q)):.4f} "
          f"KL={kl(p, probs):.5f} probs={np.round(np.asarray(probs), 3)}")


def main():
    cfg = FIT
    true_probs, freq = empirical_frequencies(cfg)
    print(f"[data] true={np.round(np.asarray(true_probs), 3)} empirical={np.round(np.asarray(freq), 3)}")
    q = jnp.zeros((cfg["categories"],))
    report(0, q, freq)
    grad_q = jax.jit(jax.grad(cross_entropy_loss, argnums=1))
    for it in range(1, cfg["iters"] + 1):
        q = q - cfg["lr"] * grad_q(freq, q)
        report(it, q, freq)


if __name__ == "__main__":
    main()
