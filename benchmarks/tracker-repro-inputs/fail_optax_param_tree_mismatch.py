# jax-reduce tracker: reproduces ValueError: pytree structure error: different numbers of pytree children at key path @ jax._src.tree_util.tree_map [jax.tree_util.tree_map(float:1, float:2, float:1, float:2, float:1, float:2)] (verified in a fresh interpreter)
import collections
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

EmptyState = collections.namedtuple('EmptyState', [], module='optax._src.base')
ScaleByAdamState = collections.namedtuple('ScaleByAdamState', ['count', 'mu', 'nu'], module='optax._src.transform')

c_72 = np.ones((10, 32), dtype=np.float32)
c_73 = np.zeros((32,), dtype=np.float32)
c_74 = np.ones((32, 16), dtype=np.float32)
c_75 = np.zeros((16,), dtype=np.float32)
c_76 = np.array([[0.14448943734169006, -0.25948554277420044, -0.00888415239751339], [0.44905298948287964, 0.2906053066253662, -0.3443458080291748], [-0.04214927926659584, 0.09810376912355423, 0.1934679001569748], [0.19898410141468048, -0.23833009600639343, -0.20388340950012207], [-0.01992638409137726, 0.00391542399302125, -0.4127420485019684], [-0.28545117378234863, 0.032178621739149094, -0.1351669877767563], [-0.12955734133720398, -0.16446860134601593, -0.22906841337680817], [0.41790133714675903, 0.4516270160675049, 0.07471001893281937], [-0.017153505235910416, 0.5565620064735413, 0.25262704491615295], [0.1784590631723404, 0.08522116392850876, -0.08694574236869812], [0.06553078442811966, 0.2781015932559967, 0.07021497189998627], [-0.08844947814941406, -0.01578945480287075, 0.1697733849287033], [0.022223755717277527, -0.25622642040252686, 0.37716683745384216], [0.19982250034809113, -0.20621827244758606, 0.10517916828393936], [0.30737096071243286, -0.2552421987056732, -0.3593105375766754], [0.3920780122280121, 0.2203351855278015, 0.44334426522254944]], dtype=np.float32)
c_77 = np.zeros((3,), dtype=np.float32)
c_78 = np.array(0, dtype=np.int32)
c_79 = np.zeros((32,), dtype=np.float32)
c_80 = np.zeros((10, 32), dtype=np.float32)
c_81 = np.zeros((16,), dtype=np.float32)
c_82 = np.zeros((32, 16), dtype=np.float32)
c_83 = np.zeros((32,), dtype=np.float32)
c_84 = np.zeros((10, 32), dtype=np.float32)
c_85 = np.zeros((16,), dtype=np.float32)
c_86 = np.zeros((32, 16), dtype=np.float32)
c_87 = np.ones((64, 10), dtype=np.float32)
c_88 = np.array([0, 0, 1, 1, 1, 2, 2, 0, 1, 2, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 2, 0, 2, 1, 1, 2, 0, 1, 2, 2, 2, 0, 1, 0, 1, 0, 0, 1, 2, 0, 1, 1, 2, 2, 2, 0, 1, 0, 0, 2, 1, 1, 1, 0, 2, 0, 0, 2, 1, 2, 2, 2, 0, 1], dtype=np.int32)


def step_30(params, opt_state, x_7, x_8):
    x_1 = params['backbone']['fc1']['bias']
    x_2 = params['backbone']['fc1']['kernel']
    x_3 = params['backbone']['fc2']['bias']
    x_4 = params['backbone']['fc2']['kernel']
    x_5 = params['head']['bias']
    x_6 = params['head']['kernel']
    out_10 = jax.value_and_grad(loss_fn_9)(params, x_7, x_8)
    v_11 = out_10[1]['backbone']['fc1']['bias']
    v_12 = out_10[1]['backbone']['fc1']['kernel']
    v_13 = out_10[1]['backbone']['fc2']['bias']
    v_14 = out_10[1]['backbone']['fc2']['kernel']
    v_15 = out_10[1]['head']['bias']
    v_16 = out_10[1]['head']['kernel']
    v_17 = 0.0001 * x_1
    v_18 = v_11 + v_17
    v_19 = 0.0001 * x_2
    v_20 = v_12 + v_19
    v_21 = 0.0001 * x_3
    v_22 = v_13 + v_21
    v_23 = 0.0001 * x_4
    v_24 = v_14 + v_23
    v_25 = 0.0001 * x_5
    v_26 = v_15 + v_25
    v_27 = 0.0001 * x_6
    v_28 = v_16 + v_27

    def fun_29(*args, **kwargs):
        raise NotImplementedError('JAX did not trace this function in the original run')

    jax.tree.map(fun_29, {'backbone': {'fc1': {'bias': v_18, 'kernel': v_20}, 'fc2': {'bias': v_22, 'kernel': v_24}}, 'head': {'bias': v_26, 'kernel': v_28}}, opt_state[1][0][1], is_leaf=None)


def loss_fn_9(params, x_7, x_8):
    x_31 = params['backbone']['fc1']['bias']
    x_32 = params['backbone']['fc1']['kernel']
    x_33 = params['backbone']['fc2']['bias']
    x_34 = params['backbone']['fc2']['kernel']
    x_35 = params['head']['bias']
    x_36 = params['head']['kernel']
    jax.eval_shape(fun_37)
    jax.eval_shape(fun_38)
    jnp.asarray(x_7)
    jnp.asarray(x_32)
    jnp.asarray(x_31)
    jnp.asarray(x_7, jnp.dtype('float32'))
    jnp.asarray(x_32, jnp.dtype('float32'))
    jnp.asarray(x_31, jnp.dtype('float32'))
    v_39 = lax.dot_general(x_7, x_32, (((1,), (0,)), ((), ())), precision=None)
    v_40 = jnp.reshape(x_31, (1, -1))
    v_41 = v_39 + v_40
    v_42 = jax.nn.relu(v_41)
    jax.eval_shape(fun_43)
    jax.eval_shape(fun_44)
    jnp.asarray(v_42)
    jnp.asarray(x_34)
    jnp.asarray(x_33)
    jnp.asarray(v_42, jnp.dtype('float32'))
    jnp.asarray(x_34, jnp.dtype('float32'))
    jnp.asarray(x_33, jnp.dtype('float32'))
    v_45 = lax.dot_general(v_42, x_34, (((1,), (0,)), ((), ())), precision=None)
    v_46 = jnp.reshape(x_33, (1, -1))
    v_47 = v_45 + v_46
    v_48 = jax.nn.relu(v_47)
    jax.eval_shape(fun_49)
    jax.eval_shape(fun_50)
    jnp.asarray(v_48)
    jnp.asarray(x_36)
    jnp.asarray(x_35)
    jnp.asarray(v_48, jnp.dtype('float32'))
    jnp.asarray(x_36, jnp.dtype('float32'))
    jnp.asarray(x_35, jnp.dtype('float32'))
    v_51 = lax.dot_general(v_48, x_36, (((1,), (0,)), ((), ())), precision=None)
    v_52 = jnp.reshape(x_35, (1, -1))
    v_53 = v_51 + v_52
    v_54 = jnp.expand_dims(x_8, 1)
    v_55 = jnp.take_along_axis(v_53, v_54, axis=1)
    v_56 = v_55.take(0, axis=1)
    v_57 = jax.nn.logsumexp(v_53, axis=1, where=None)
    v_58 = v_57 - v_56
    v_59 = v_58.mean()
    return v_59


def fun_37():
    v_60 = jax.random.key(0)
    v_61 = jax.nn.initializers.lecun_normal()(v_60, (10, 32), jnp.float32)
    return v_61


def fun_38():
    v_62 = jax.random.key(0)
    v_63 = jax.nn.initializers.zeros(v_62, (32,), jnp.float32)
    return v_63


def fun_43():
    v_64 = jax.random.key(0)
    v_65 = jax.nn.initializers.lecun_normal()(v_64, (32, 16), jnp.float32)
    return v_65


def fun_44():
    v_66 = jax.random.key(0)
    v_67 = jax.nn.initializers.zeros(v_66, (16,), jnp.float32)
    return v_67


def fun_49():
    v_68 = jax.random.key(0)
    v_69 = jax.nn.initializers.lecun_normal()(v_68, (16, 3), jnp.float32)
    return v_69


def fun_50():
    v_70 = jax.random.key(0)
    v_71 = jax.nn.initializers.zeros(v_70, (3,), jnp.float32)
    return v_71


jax.jit(step_30)({'backbone': {'fc1': {'kernel': c_72, 'bias': c_73}, 'fc2': {'kernel': c_74, 'bias': c_75}}, 'head': {'kernel': c_76, 'bias': c_77}}, (EmptyState(), (ScaleByAdamState(c_78, {'backbone': {'fc1': {'bias': c_79, 'kernel': c_80}, 'fc2': {'bias': c_81, 'kernel': c_82}}}, {'backbone': {'fc1': {'bias': c_83, 'kernel': c_84}, 'fc2': {'bias': c_85, 'kernel': c_86}}}), EmptyState())), c_87, c_88)
