# jax-reduce tracker: reproduces ValueError: Incompatible shapes for broadcasting: shapes=[(N, N), (N, N, N, N), ()] @ jax._src.lax.lax._broadcast_shapes_uncached [jax.lax.broadcast_shapes()] (verified in a fresh interpreter)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

c_88 = np.zeros((2,), dtype=np.uint32)
c_89 = np.ones((16, 10), dtype=np.int32)


def init_75(x_1, x_2):
    jax.eval_shape(fun_3, 0)
    jax.eval_shape(fun_4, 0)
    jax.eval_shape(fun_5, 0)
    jax.eval_shape(fun_6, 0)
    v_7 = x_2 > 0
    v_8 = jnp.uint32(1350435477)
    v_9 = jax.random.fold_in(x_1, v_8)
    v_10 = jax.nn.initializers.variance_scaling(1.0, 'fan_in', 'normal', out_axis=0)(v_9, (40, 32), jnp.float32)
    jnp.asarray(v_10)
    jnp.asarray(v_10, jnp.dtype('float32'))
    v_11 = jnp.take(v_10, x_2, axis=0)
    v_12 = jnp.uint32(3213575472)
    v_13 = jax.random.fold_in(x_1, v_12)
    v_14 = jax.nn.initializers.normal(0.02)(v_13, (10, 32))
    v_15 = v_11 + v_14
    v_15.astype(jnp.dtype('float32'))
    v_16 = lax.square(v_15)
    v_17 = v_15.mean((2,), where=None)
    v_18 = v_16.mean((2,), where=None)
    v_19 = lax.square(v_17)
    v_20 = v_18 - v_19
    v_21 = jnp.maximum(0.0, v_20)
    v_22 = jnp.expand_dims(v_17, (2,))
    v_23 = jnp.expand_dims(v_21, (2,))
    v_24 = v_15 - v_22
    v_25 = v_23 + 1e-06
    v_26 = lax.rsqrt(v_25)
    v_27 = jnp.uint32(2647201475)
    v_28 = jax.random.fold_in(x_1, v_27)
    v_29 = jax.nn.initializers.ones(v_28, [32], jnp.float32)
    v_30 = v_29.reshape([1, 1, 32])
    v_31 = v_26 * v_30
    v_32 = v_24 * v_31
    v_33 = jnp.uint32(257124967)
    v_34 = jax.random.fold_in(x_1, v_33)
    v_35 = jax.nn.initializers.zeros(v_34, [32], jnp.float32)
    v_36 = v_35.reshape([1, 1, 32])
    v_37 = v_32 + v_36
    jnp.asarray(v_15)
    jnp.asarray(v_30)
    jnp.asarray(v_36)
    jnp.asarray(v_37, jnp.dtype('float32'))
    v_38 = jnp.uint32(3076062253)
    v_39 = jax.random.fold_in(x_1, v_38)
    v_40 = jax.nn.initializers.lecun_normal()(v_39, (32, 32), jnp.float32)
    v_41 = jnp.reshape(v_40, (32, 4, 8))
    v_42 = jnp.uint32(1711896043)
    v_43 = jax.random.fold_in(x_1, v_42)
    v_44 = jax.nn.initializers.zeros(v_43, (32,), jnp.float32)
    v_45 = jnp.reshape(v_44, (4, 8))
    jnp.asarray(v_37)
    jnp.asarray(v_41)
    jnp.asarray(v_45)
    jnp.asarray(v_37, jnp.dtype('float32'))
    jnp.asarray(v_41, jnp.dtype('float32'))
    jnp.asarray(v_45, jnp.dtype('float32'))
    v_46 = lax.dot_general(v_37, v_41, (((2,), (0,)), ((), ())), precision=None)
    v_47 = jnp.reshape(v_45, (1, 1, 4, 8))
    v_48 = v_46 + v_47
    v_49 = jnp.uint32(1770939249)
    v_50 = jax.random.fold_in(x_1, v_49)
    v_51 = jax.nn.initializers.lecun_normal()(v_50, (32, 32), jnp.float32)
    v_52 = jnp.reshape(v_51, (32, 4, 8))
    v_53 = jnp.uint32(1900638746)
    v_54 = jax.random.fold_in(x_1, v_53)
    v_55 = jax.nn.initializers.zeros(v_54, (32,), jnp.float32)
    v_56 = jnp.reshape(v_55, (4, 8))
    jnp.asarray(v_37)
    jnp.asarray(v_52)
    jnp.asarray(v_56)
    jnp.asarray(v_37, jnp.dtype('float32'))
    jnp.asarray(v_52, jnp.dtype('float32'))
    jnp.asarray(v_56, jnp.dtype('float32'))
    v_57 = lax.dot_general(v_37, v_52, (((2,), (0,)), ((), ())), precision=None)
    v_58 = jnp.reshape(v_56, (1, 1, 4, 8))
    v_59 = v_57 + v_58
    v_60 = jnp.uint32(16735491)
    v_61 = jax.random.fold_in(x_1, v_60)
    v_62 = jax.nn.initializers.lecun_normal()(v_61, (32, 32), jnp.float32)
    v_63 = jnp.reshape(v_62, (32, 4, 8))
    v_64 = jnp.uint32(1783836676)
    v_65 = jax.random.fold_in(x_1, v_64)
    v_66 = jax.nn.initializers.zeros(v_65, (32,), jnp.float32)
    v_67 = jnp.reshape(v_66, (4, 8))
    jnp.asarray(v_37)
    jnp.asarray(v_63)
    jnp.asarray(v_67)
    jnp.asarray(v_37, jnp.dtype('float32'))
    jnp.asarray(v_63, jnp.dtype('float32'))
    jnp.asarray(v_67, jnp.dtype('float32'))
    v_68 = lax.dot_general(v_37, v_63, (((2,), (0,)), ((), ())), precision=None)
    v_69 = jnp.reshape(v_67, (1, 1, 4, 8))
    v_70 = v_68 + v_69
    jnp.asarray(v_48)
    jnp.asarray(v_59)
    jnp.asarray(v_70)
    jnp.asarray(v_48, jnp.dtype('float32'))
    jnp.asarray(v_59, jnp.dtype('float32'))
    jnp.asarray(v_70, jnp.dtype('float32'))
    jnp.asarray(v_48, jnp.dtype('float32'))
    jnp.asarray(v_59, jnp.dtype('float32'))
    v_71 = jnp.sqrt(8)
    v_72 = v_71.astype(jnp.dtype('float32'))
    v_73 = v_48 / v_72
    v_74 = jnp.einsum('...qhd,...khd->...hqk', v_73, v_59, precision=None, _dot_general=lax.dot_general)
    jnp.where(v_7, v_74, np.float32(-3.4028234663852886e+38))


def fun_3(x_76):
    v_77 = jax.random.key(x_76)
    v_78 = jax.random.key_data(v_77)
    return v_78


def fun_4(x_79):
    v_80 = jax.random.key(x_79)
    v_81 = jax.random.key_data(v_80)
    return v_81


def fun_5(x_82):
    v_83 = jax.random.key(x_82)
    v_84 = jax.random.key_data(v_83)
    return v_84


def fun_6(x_85):
    v_86 = jax.random.key(x_85)
    v_87 = jax.random.key_data(v_86)
    return v_87


jax.jit(init_75)(c_88, c_89)
