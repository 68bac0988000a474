# An nnx CNN trained with nnx.jit and nnx.Optimizer on RGB images: the data pipeline converts the images to
# channels-first (NCHW, as a PyTorch port expects), but nnx.Conv is channels-last, so the first convolution
# sees 32 "channels" where its kernel expects 3 and conv_general_dilated rejects the feature dimensions.
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


class CNN(nnx.Module):
    def __init__(self, classes, *, rngs):
        self.conv1 = nnx.Conv(3, 16, kernel_size=(3, 3), rngs=rngs)
        self.conv2 = nnx.Conv(16, 32, kernel_size=(3, 3), strides=(2, 2), rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.head = nnx.Linear(32, classes, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv1(x))
        x = nnx.relu(self.conv2(x))
        x = self.dropout(x.mean(axis=(1, 2)))
        return self.head(x)


def to_channels_first(batch):
    return np.transpose(batch, (0, 3, 1, 2))


@nnx.jit
def train_step(model, optimizer, metrics, images, labels):
    def loss_fn(model):
        logits = model(images)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean(), logits
    (loss, logits), grads = nnx.value_and_grad(loss_fn, has_aux=True)(model)
    metrics.update(loss=loss, logits=logits, labels=labels)
    optimizer.update(model, grads)
    return loss


def main():
    rng = np.random.default_rng(0)
    model = CNN(10, rngs=nnx.Rngs(0, dropout=1))
    optimizer = nnx.Optimizer(model, optax.sgd(optax.cosine_decay_schedule(0.05, 100), momentum=0.9),
                              wrt=nnx.Param)
    metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))
    for step in range(3):
        images = rng.uniform(size=(8, 32, 32, 3)).astype(np.float32)
        labels = rng.integers(0, 10, size=(8,))
        loss = train_step(model, optimizer, metrics, jnp.asarray(to_channels_first(images)),
                          jnp.asarray(labels))
        print(step, float(loss), metrics.compute())


if __name__ == "__main__":
    main()
