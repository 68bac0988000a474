# jax-reduce tracker: reproduces TypeError: dot_general requires contracting dimensions to have the same shape, got (N,) and (N,). @ jax._src.lax.lax._dot_general_shape_rule [jax.lax.dot -> dot_general(float:3, float:2)] (verified in a fresh interpreter)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

c_108 = np.zeros((2,), dtype=np.uint32)
c_109 = np.array([[42, 43, 44, 45, 46, 47, 48, 49, 0, 1, 2, 3], [31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42], [25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36], [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]], dtype=np.int32)


def init_95(x_1, x_2):
    jax.eval_shape(fun_3, 0)
    jax.eval_shape(fun_4, 0)
    jax.eval_shape(fun_5, 0)
    jax.eval_shape(fun_6, 0)
    v_7 = jnp.uint32(173047674)
    v_8 = jax.random.fold_in(x_1, v_7)
    v_9 = jax.nn.initializers.variance_scaling(1.0, 'fan_in', 'normal', out_axis=0)(v_8, (50, 32), jnp.float32)
    jnp.asarray(v_9)
    jnp.asarray(v_9, jnp.dtype('float32'))
    v_10 = jnp.take(v_9, x_2, axis=0)
    v_10.astype(jnp.dtype('float32'))
    v_11 = lax.square(v_10)
    v_12 = v_10.mean((2,), where=None)
    v_13 = v_11.mean((2,), where=None)
    v_14 = lax.square(v_12)
    v_15 = v_13 - v_14
    v_16 = jnp.maximum(0.0, v_15)
    v_17 = jnp.expand_dims(v_12, (2,))
    v_18 = jnp.expand_dims(v_16, (2,))
    v_19 = v_10 - v_17
    v_20 = v_18 + 1e-06
    v_21 = lax.rsqrt(v_20)
    v_22 = jnp.uint32(4259115309)
    v_23 = jax.random.fold_in(x_1, v_22)
    v_24 = jax.nn.initializers.ones(v_23, [32], jnp.float32)
    v_25 = v_24.reshape([1, 1, 32])
    v_26 = v_21 * v_25
    v_27 = v_19 * v_26
    v_28 = jnp.uint32(3949629764)
    v_29 = jax.random.fold_in(x_1, v_28)
    v_30 = jax.nn.initializers.zeros(v_29, [32], jnp.float32)
    v_31 = v_30.reshape([1, 1, 32])
    v_32 = v_27 + v_31
    jnp.asarray(v_10)
    jnp.asarray(v_25)
    jnp.asarray(v_31)
    jnp.asarray(v_32, jnp.dtype('float32'))
    v_33 = jnp.uint32(983847991)
    v_34 = jax.random.fold_in(x_1, v_33)
    v_35 = jax.nn.initializers.lecun_normal()(v_34, (32, 64), jnp.float32)
    v_36 = jnp.uint32(3615385588)
    v_37 = jax.random.fold_in(x_1, v_36)
    v_38 = jax.nn.initializers.zeros(v_37, (64,), jnp.float32)
    jnp.asarray(v_32)
    jnp.asarray(v_35)
    jnp.asarray(v_38)
    jnp.asarray(v_32, jnp.dtype('float32'))
    jnp.asarray(v_35, jnp.dtype('float32'))
    jnp.asarray(v_38, jnp.dtype('float32'))
    v_39 = lax.dot_general(v_32, v_35, (((2,), (0,)), ((), ())), precision=None)
    v_40 = jnp.reshape(v_38, (1, 1, -1))
    v_41 = v_39 + v_40
    v_42 = jax.nn.gelu(v_41)
    v_43 = jnp.uint32(2964950172)
    v_44 = jax.random.fold_in(x_1, v_43)
    v_45 = jax.nn.initializers.lecun_normal()(v_44, (64, 32), jnp.float32)
    v_46 = jnp.uint32(2052912442)
    v_47 = jax.random.fold_in(x_1, v_46)
    v_48 = jax.nn.initializers.zeros(v_47, (32,), jnp.float32)
    jnp.asarray(v_42)
    jnp.asarray(v_45)
    jnp.asarray(v_48)
    jnp.asarray(v_42, jnp.dtype('float32'))
    jnp.asarray(v_45, jnp.dtype('float32'))
    jnp.asarray(v_48, jnp.dtype('float32'))
    v_49 = lax.dot_general(v_42, v_45, (((2,), (0,)), ((), ())), precision=None)
    v_50 = jnp.reshape(v_48, (1, 1, -1))
    v_51 = v_49 + v_50
    v_52 = v_10 + v_51
    v_52.astype(jnp.dtype('float32'))
    v_53 = lax.square(v_52)
    v_54 = v_52.mean((2,), where=None)
    v_55 = v_53.mean((2,), where=None)
    v_56 = lax.square(v_54)
    v_57 = v_55 - v_56
    v_58 = jnp.maximum(0.0, v_57)
    v_59 = jnp.expand_dims(v_54, (2,))
    v_60 = jnp.expand_dims(v_58, (2,))
    v_61 = v_52 - v_59
    v_62 = v_60 + 1e-06
    v_63 = lax.rsqrt(v_62)
    v_64 = jnp.uint32(2620550190)
    v_65 = jax.random.fold_in(x_1, v_64)
    v_66 = jax.nn.initializers.ones(v_65, [32], jnp.float32)
    v_67 = v_66.reshape([1, 1, 32])
    v_68 = v_63 * v_67
    v_69 = v_61 * v_68
    v_70 = jnp.uint32(2337465098)
    v_71 = jax.random.fold_in(x_1, v_70)
    v_72 = jax.nn.initializers.zeros(v_71, [32], jnp.float32)
    v_73 = v_72.reshape([1, 1, 32])
    v_74 = v_69 + v_73
    jnp.asarray(v_52)
    jnp.asarray(v_67)
    jnp.asarray(v_73)
    jnp.asarray(v_74, jnp.dtype('float32'))
    v_75 = jnp.uint32(2821703622)
    v_76 = jax.random.fold_in(x_1, v_75)
    v_77 = jax.nn.initializers.lecun_normal()(v_76, (32, 96), jnp.float32)
    v_78 = jnp.uint32(1137664914)
    v_79 = jax.random.fold_in(x_1, v_78)
    v_80 = jax.nn.initializers.zeros(v_79, (96,), jnp.float32)
    jnp.asarray(v_74)
    jnp.asarray(v_77)
    jnp.asarray(v_80)
    jnp.asarray(v_74, jnp.dtype('float32'))
    jnp.asarray(v_77, jnp.dtype('float32'))
    jnp.asarray(v_80, jnp.dtype('float32'))
    v_81 = lax.dot_general(v_74, v_77, (((2,), (0,)), ((), ())), precision=None)
    v_82 = jnp.reshape(v_80, (1, 1, -1))
    v_83 = v_81 + v_82
    v_84 = jax.nn.gelu(v_83)
    v_85 = jnp.uint32(2701714058)
    v_86 = jax.random.fold_in(x_1, v_85)
    v_87 = jax.nn.initializers.lecun_normal()(v_86, (96, 48), jnp.float32)
    v_88 = jnp.uint32(965726553)
    v_89 = jax.random.fold_in(x_1, v_88)
    v_90 = jax.nn.initializers.zeros(v_89, (48,), jnp.float32)
    jnp.asarray(v_84)
    jnp.asarray(v_87)
    jnp.asarray(v_90)
    jnp.asarray(v_84, jnp.dtype('float32'))
    jnp.asarray(v_87, jnp.dtype('float32'))
    jnp.asarray(v_90, jnp.dtype('float32'))
    v_91 = lax.dot_general(v_84, v_87, (((2,), (0,)), ((), ())), precision=None)
    v_92 = jnp.reshape(v_90, (1, 1, -1))
    v_93 = v_91 + v_92
    jnp.asarray(v_93)
    jnp.asarray(v_9)
    jnp.asarray(v_93, jnp.dtype('float32'))
    jnp.asarray(v_9, jnp.dtype('float32'))
    v_94 = v_9.T
    jnp.dot(v_93, v_94)


def fun_3(x_96):
    v_97 = jax.random.key(x_96)
    v_98 = jax.random.key_data(v_97)
    return v_98


def fun_4(x_99):
    v_100 = jax.random.key(x_99)
    v_101 = jax.random.key_data(v_100)
    return v_101


def fun_5(x_102):
    v_103 = jax.random.key(x_102)
    v_104 = jax.random.key_data(v_103)
    return v_104


def fun_6(x_105):
    v_106 = jax.random.key(x_105)
    v_107 = jax.random.key_data(v_106)
    return v_107


jax.jit(init_95)(c_108, c_109)
