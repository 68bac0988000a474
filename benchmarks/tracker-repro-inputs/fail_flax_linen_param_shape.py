# jax-reduce tracker: does NOT reproduce flax.errors.ScopeParamShapeError: For parameter "kernel" in "/in_proj", the given initializer is expected to generate shape (N, N), but the existing parameter it received has shape (N, N). (<link> @ jax._src.traceback_util.reraise_with_filtered_traceback: it raised TypeError: expected function with aux output to return a two-element tuple, but got type <class 'NoneType'> with value None @ jax._src.interpreters.ad.linearize [jax.vjp(float:1, float:2, float:1, float:2, float:1, float:2)] instead
# jax-reduce tracker: the original program is copied to /tmp/tail5-repros/fail_flax_linen_param_shape/train_step_1_original/fail_flax_linen_param_shape.py; reduce that instead
import collections
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class MLP:
    pass


EmptyState = collections.namedtuple('EmptyState', [], module='optax._src.base')
ScaleByAdamState = collections.namedtuple('ScaleByAdamState', ['count', 'mu', 'nu'], module='optax._src.transform')

o_4 = MLP()
c_9 = np.ones((784, 64), dtype=np.float32)
c_10 = np.zeros((64,), dtype=np.float32)
c_11 = np.ones((64, 64), dtype=np.float32)
c_12 = np.zeros((64,), dtype=np.float32)
c_13 = np.ones((64, 10), dtype=np.float32)
c_14 = np.zeros((10,), dtype=np.float32)
c_15 = np.array(0, dtype=np.int32)
c_16 = np.zeros((10,), dtype=np.float32)
c_17 = np.zeros((64, 10), dtype=np.float32)
c_18 = np.zeros((64,), dtype=np.float32)
c_19 = np.zeros((784, 64), dtype=np.float32)
c_20 = np.zeros((64,), dtype=np.float32)
c_21 = np.zeros((64, 64), dtype=np.float32)
c_22 = np.zeros((10,), dtype=np.float32)
c_23 = np.zeros((64, 10), dtype=np.float32)
c_24 = np.zeros((64,), dtype=np.float32)
c_25 = np.zeros((784, 64), dtype=np.float32)
c_26 = np.zeros((64,), dtype=np.float32)
c_27 = np.zeros((64, 64), dtype=np.float32)
c_28 = np.ones((16, 32, 32), dtype=np.float32)
c_29 = np.array([8, 1, 5, 0, 8, 8, 5, 3, 9, 0, 4, 9, 2, 8, 6, 5], dtype=np.int32)


def train_step_5(params, opt_state, x_1, x_2):
    jax.value_and_grad(loss_fn_3, has_aux=True)(params, o_4, x_1, x_2)


def loss_fn_3(params, model, x_1, x_2):
    x_1.reshape((16, -1))
    jax.eval_shape(fun_6)


def fun_6():
    v_7 = jax.random.key(0)
    v_8 = jax.nn.initializers.lecun_normal()(v_7, (1024, 64), jnp.float32)
    return v_8


jax.jit(train_step_5)({'in_proj': {'kernel': c_9, 'bias': c_10}, 'mid': {'kernel': c_11, 'bias': c_12}, 'head': {'kernel': c_13, 'bias': c_14}}, (EmptyState(), (ScaleByAdamState(c_15, {'head': {'bias': c_16, 'kernel': c_17}, 'in_proj': {'bias': c_18, 'kernel': c_19}, 'mid': {'bias': c_20, 'kernel': c_21}}, {'head': {'bias': c_22, 'kernel': c_23}, 'in_proj': {'bias': c_24, 'kernel': c_25}, 'mid': {'bias': c_26, 'kernel': c_27}}), EmptyState())), c_28, c_29)
