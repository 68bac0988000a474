# Evaluation metrics that work: not a repro (it must be reported as not failing).
import jax.numpy as jnp

preds = jnp.array([0.1, 0.8, 0.6, 0.3])
labels = jnp.array([0, 1, 1, 0])
accuracy = jnp.mean((preds > 0.5) == labels)
print("accuracy", float(accuracy))
