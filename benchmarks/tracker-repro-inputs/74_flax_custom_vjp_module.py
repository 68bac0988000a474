# jax-reduce tracker: reproduces TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, *)). @ jax._src.custom_derivatives._flatten_bwd (verified in a fresh interpreter)
import collections
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class QuantisedAutoencoder:
    pass


EmptyState = collections.namedtuple('EmptyState', [], module='optax._src.base')
ScaleByAdamState = collections.namedtuple('ScaleByAdamState', ['count', 'mu', 'nu'], module='optax._src.transform')
ScaleByScheduleState = collections.namedtuple('ScaleByScheduleState', ['count'], module='optax._src.transform')

o_3 = QuantisedAutoencoder()
c_81 = np.ones((20, 32), dtype=np.float32)
c_82 = np.zeros((32,), dtype=np.float32)
c_83 = np.ones((32, 8), dtype=np.float32)
c_84 = np.zeros((8,), dtype=np.float32)
c_85 = np.array(-3.0, dtype=np.float32)
c_86 = np.ones((8, 32), dtype=np.float32)
c_87 = np.zeros((32,), dtype=np.float32)
c_88 = np.ones((32, 20), dtype=np.float32)
c_89 = np.zeros((20,), dtype=np.float32)
c_90 = np.array(0, dtype=np.int32)
c_91 = np.zeros((32,), dtype=np.float32)
c_92 = np.zeros((20, 32), dtype=np.float32)
c_93 = np.zeros((32,), dtype=np.float32)
c_94 = np.zeros((8, 32), dtype=np.float32)
c_95 = np.zeros((20,), dtype=np.float32)
c_96 = np.zeros((32, 20), dtype=np.float32)
c_97 = np.zeros((8,), dtype=np.float32)
c_98 = np.zeros((32, 8), dtype=np.float32)
c_99 = np.array(0.0, dtype=np.float32)
c_100 = np.zeros((32,), dtype=np.float32)
c_101 = np.zeros((20, 32), dtype=np.float32)
c_102 = np.zeros((32,), dtype=np.float32)
c_103 = np.zeros((8, 32), dtype=np.float32)
c_104 = np.zeros((20,), dtype=np.float32)
c_105 = np.zeros((32, 20), dtype=np.float32)
c_106 = np.zeros((8,), dtype=np.float32)
c_107 = np.zeros((32, 8), dtype=np.float32)
c_108 = np.array(0.0, dtype=np.float32)
c_109 = np.array(0, dtype=np.int32)
c_110 = np.ones((32, 20), dtype=np.float32)


def step_4(params, opt_state, x_1):
    jax.value_and_grad(reconstruction_loss_2)(params, o_3, x_1)


def reconstruction_loss_2(params, model, x_1):
    x_5 = params['Dense_0']['bias']
    x_6 = params['Dense_0']['kernel']
    x_7 = params['Dense_1']['bias']
    x_8 = params['Dense_1']['kernel']
    x_9 = params['decoder']['bias']
    x_10 = params['decoder']['kernel']
    x_11 = params['encoder']['bias']
    x_12 = params['encoder']['kernel']
    x_13 = params['log_step']
    jax.eval_shape(fun_14)
    jax.eval_shape(fun_15)
    jnp.asarray(x_1)
    jnp.asarray(x_6)
    jnp.asarray(x_5)
    jnp.asarray(x_1, jnp.dtype('float32'))
    jnp.asarray(x_6, jnp.dtype('float32'))
    jnp.asarray(x_5, jnp.dtype('float32'))
    v_16 = lax.dot_general(x_1, x_6, (((1,), (0,)), ((), ())), precision=None)
    v_17 = jnp.reshape(x_5, (1, -1))
    v_18 = v_16 + v_17
    v_19 = jax.nn.relu(v_18)
    jax.eval_shape(fun_20)
    jax.eval_shape(fun_21)
    jnp.asarray(v_19)
    jnp.asarray(x_12)
    jnp.asarray(x_11)
    jnp.asarray(v_19, jnp.dtype('float32'))
    jnp.asarray(x_12, jnp.dtype('float32'))
    jnp.asarray(x_11, jnp.dtype('float32'))
    v_22 = lax.dot_general(v_19, x_12, (((1,), (0,)), ((), ())), precision=None)
    v_23 = jnp.reshape(x_11, (1, -1))
    v_24 = v_22 + v_23
    jax.eval_shape(fun_25)
    v_26 = jnp.exp(x_13)

    def quantise_28(*args, **kwargs):
        raise NotImplementedError('JAX did not trace this function in the original run')

    custom_27 = jax.custom_vjp(quantise_28)
    custom_27.defvjp(quantise_fwd_29, quantise_bwd_30)
    v_31 = custom_27(v_24, v_26)
    jax.eval_shape(fun_32)
    jax.eval_shape(fun_33)
    jnp.asarray(v_31)
    jnp.asarray(x_8)
    jnp.asarray(x_7)
    jnp.asarray(v_31, jnp.dtype('float32'))
    jnp.asarray(x_8, jnp.dtype('float32'))
    jnp.asarray(x_7, jnp.dtype('float32'))
    v_34 = lax.dot_general(v_31, x_8, (((1,), (0,)), ((), ())), precision=None)
    v_35 = jnp.reshape(x_7, (1, -1))
    v_36 = v_34 + v_35
    v_37 = jax.nn.relu(v_36)
    jax.eval_shape(fun_38)
    jax.eval_shape(fun_39)
    jnp.asarray(v_37)
    jnp.asarray(x_10)
    jnp.asarray(x_9)
    jnp.asarray(v_37, jnp.dtype('float32'))
    jnp.asarray(x_10, jnp.dtype('float32'))
    jnp.asarray(x_9, jnp.dtype('float32'))
    v_40 = lax.dot_general(v_37, x_10, (((1,), (0,)), ((), ())), precision=None)
    v_41 = jnp.reshape(x_9, (1, -1))
    v_42 = v_40 + v_41
    v_43 = v_42 - x_1
    v_44 = v_43 ** 2
    v_45 = jnp.mean(v_44)
    return v_45


def fun_14():
    v_46 = jax.random.key(0)
    v_47 = jax.nn.initializers.lecun_normal()(v_46, (20, 32), jnp.float32)
    return v_47


def fun_15():
    v_48 = jax.random.key(0)
    v_49 = jax.nn.initializers.zeros(v_48, (32,), jnp.float32)
    return v_49


def fun_20():
    v_50 = jax.random.key(0)
    v_51 = jax.nn.initializers.lecun_normal()(v_50, (32, 8), jnp.float32)
    return v_51


def fun_21():
    v_52 = jax.random.key(0)
    v_53 = jax.nn.initializers.zeros(v_52, (8,), jnp.float32)
    return v_53


def fun_25():
    v_54 = jax.random.key(0)
    v_55 = jax.nn.initializers.constant(-3.0)(v_54, ())
    return v_55


def quantise_fwd_29(x_56, x_57):
    custom_58 = jax.custom_vjp(quantise_59)

    def quantise_fwd_60(*args, **kwargs):
        raise NotImplementedError('JAX did not trace this function in the original run')

    def quantise_bwd_61(*args, **kwargs):
        raise NotImplementedError('JAX did not trace this function in the original run')

    custom_58.defvjp(quantise_fwd_60, quantise_bwd_61)
    v_62 = custom_58(x_56, x_57)
    return (v_62, (x_56, x_57))


def quantise_59(x_63, x_64):
    v_65 = x_63 / x_64
    v_66 = jnp.round(v_65)
    v_67 = v_66 * x_64
    return v_67


def fun_32():
    v_68 = jax.random.key(0)
    v_69 = jax.nn.initializers.lecun_normal()(v_68, (8, 32), jnp.float32)
    return v_69


def fun_33():
    v_70 = jax.random.key(0)
    v_71 = jax.nn.initializers.zeros(v_70, (32,), jnp.float32)
    return v_71


def fun_38():
    v_72 = jax.random.key(0)
    v_73 = jax.nn.initializers.lecun_normal()(v_72, (32, 20), jnp.float32)
    return v_73


def fun_39():
    v_74 = jax.random.key(0)
    v_75 = jax.nn.initializers.zeros(v_74, (20,), jnp.float32)
    return v_75


def quantise_bwd_30(residuals, x_76):
    x_56 = residuals[0]
    x_57 = residuals[1]
    v_77 = jnp.abs(x_56)
    v_78 = 127 * x_57
    v_79 = v_77 <= v_78
    v_80 = jnp.where(v_79, x_76, 0.0)
    return (v_80,)


jax.jit(step_4)({'Dense_0': {'kernel': c_81, 'bias': c_82}, 'encoder': {'kernel': c_83, 'bias': c_84}, 'log_step': c_85, 'Dense_1': {'kernel': c_86, 'bias': c_87}, 'decoder': {'kernel': c_88, 'bias': c_89}}, (EmptyState(), (ScaleByAdamState(c_90, {'Dense_0': {'bias': c_91, 'kernel': c_92}, 'Dense_1': {'bias': c_93, 'kernel': c_94}, 'decoder': {'bias': c_95, 'kernel': c_96}, 'encoder': {'bias': c_97, 'kernel': c_98}, 'log_step': c_99}, {'Dense_0': {'bias': c_100, 'kernel': c_101}, 'Dense_1': {'bias': c_102, 'kernel': c_103}, 'decoder': {'bias': c_104, 'kernel': c_105}, 'encoder': {'bias': c_106, 'kernel': c_107}, 'log_step': c_108}), ScaleByScheduleState(c_109))), c_110)
