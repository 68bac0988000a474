# A small linen language model with tied input/output embeddings, trained with optax: the block widens the
# hidden state to 48 features for the last projection, but the head reuses the 32-wide embedding table
# (nn.Embed.attend), so jnp.dot inside attend meets (batch, seq, 48) x (32, vocab) and dot_general raises
# while the jitted init traces the model.
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

VOCAB, EMBED, HIDDEN, SEQ = 50, 32, 48, 12


class Block(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, x):
        h = nn.LayerNorm()(x)
        h = nn.gelu(nn.Dense(2 * self.hidden)(h))
        return nn.Dense(self.hidden)(h)


class TinyLM(nn.Module):
    vocab: int = VOCAB
    embed_dim: int = EMBED
    hidden: int = HIDDEN

    @nn.compact
    def __call__(self, tokens):
        embed = nn.Embed(self.vocab, self.embed_dim, name="embed")
        x = embed(tokens)
        x = x + Block(self.embed_dim)(x)
        x = Block(self.hidden)(x)  # the widened final block (was embed_dim before a config change)
        return embed.attend(x)  # tied output layer


def lm_loss(params, model, tokens):
    logits = model.apply({"params": params}, tokens[:, :-1])
    return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()


def make_step(model, tx):
    @jax.jit
    def step(params, opt_state, tokens):
        loss, grads = jax.value_and_grad(lm_loss)(params, model, tokens)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss
    return step


def corpus(rng, n, batch):
    for _ in range(n):
        start = rng.integers(0, VOCAB, size=(batch, 1))
        yield jnp.asarray((start + np.arange(SEQ + 1)) % VOCAB, dtype=jnp.int32)


def main():
    rng = np.random.default_rng(0)
    model = TinyLM()
    tokens = next(corpus(rng, 1, 4))
    params = jax.jit(model.init)(jax.random.PRNGKey(0), tokens[:, :-1])["params"]
    tx = optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 3e-3, 5, 50), weight_decay=0.01)
    opt_state = tx.init(params)
    step = make_step(model, tx)
    for i, batch in enumerate(corpus(rng, 3, 8)):
        params, opt_state, loss = step(params, opt_state, batch)
        print(i, float(loss))


if __name__ == "__main__":
    main()
