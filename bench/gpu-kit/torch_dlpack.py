"""PyTorch's DLPack of CUDA tensors against typed-layout's, both ways (the GPU kit runs it; see
examples/dlpack_torch.rs).

1. typed-layout uploads an NHWC f32 image to device 0 and exports it; torch.from_dlpack reads
   it: a CUDA tensor of shape (N, C, H, W), channels_last strides, every element equal to the
   formula computed here.
2. PyTorch makes the same image as a channels_last CUDA tensor and exports it with __dlpack__;
   typed-layout imports it as an NHWC device tensor and checks every element.
Prints what it checked; exits non-zero on the first difference.

A test, not a template: a real producer gives its capsule a destructor that calls the managed
tensor's deleter unless the consumer renamed it `used_dltensor_versioned`, and hands out a new
capsule per `__dlpack__` call; a real consumer renames the capsule it takes instead of clearing
its destructor. Here each capsule is used once, and a failure ends the process.
"""
import ctypes
import sys

import torch

N, C, H, W = 2, 3, 4, 5
lib = ctypes.CDLL(sys.argv[1])
lib.tl_export_device_nhwc_f32.restype = ctypes.c_void_p
lib.tl_export_device_nhwc_f32.argtypes = [ctypes.c_size_t] * 4
lib.tl_check_device_nhwc_f32.restype = ctypes.c_int
lib.tl_check_device_nhwc_f32.argtypes = [ctypes.c_void_p] + [ctypes.c_size_t] * 4

capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_name = ctypes.pythonapi.PyCapsule_GetName
capsule_name.restype = ctypes.c_char_p
capsule_name.argtypes = [ctypes.py_object]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_set_destructor = ctypes.pythonapi.PyCapsule_SetDestructor
capsule_set_destructor.restype = ctypes.c_int
capsule_set_destructor.argtypes = [ctypes.py_object, ctypes.c_void_p]

print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
# typed-layout exchanges DLPack 1.x (versioned) tensors: say so plainly where torch has none.
try:
    probe = torch.empty(1, device="cuda").__dlpack__(max_version=(1, 0))
except TypeError:
    sys.exit(f"torch {torch.__version__} has no versioned DLPack (no max_version): typed-layout exchanges DLPack 1.x")
if capsule_name(probe) != b"dltensor_versioned":
    sys.exit(f"torch {torch.__version__} exported a {capsule_name(probe)!r} capsule: typed-layout exchanges DLPack 1.x")
del probe
expected = torch.arange(N * C * H * W, dtype=torch.float32).reshape(N, C, H, W)

# 1. Ours into PyTorch.
pointer = lib.tl_export_device_nhwc_f32(N, C, H, W)
assert pointer, "export failed"


class Exported:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # A consumer that reads no versioned tensor gets none (the protocol's rule).
        if max_version is None or max_version[0] < 1:
            raise BufferError("typed-layout exports DLPack 1.x (versioned) tensors only")
        # The export waited for its writes: any consumer stream may read it.
        return self.capsule

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0


x = torch.from_dlpack(Exported(capsule_new(pointer, b"dltensor_versioned", None)))
assert x.is_cuda and x.device.index == 0, x.device
assert tuple(x.shape) == (N, C, H, W), x.shape
assert x.stride() == (H * W * C, 1, W * C, C), x.stride()
assert x.is_contiguous(memory_format=torch.channels_last)
assert torch.equal(x.cpu(), expected)
print(f"torch.from_dlpack read typed-layout's device NHWC export: shape {tuple(x.shape)}, strides {x.stride()}, equal")
del x

# 2. PyTorch's into ours: channels_last memory, axes in logical order.
y = expected.cuda().contiguous(memory_format=torch.channels_last)
torch.cuda.synchronize()
capsule = y.__dlpack__(max_version=(1, 0))
pointer = capsule_pointer(capsule, b"dltensor_versioned")
# Ownership passes to typed-layout, which calls PyTorch's deleter: the capsule must not.
assert capsule_set_destructor(capsule, None) == 0
assert lib.tl_check_device_nhwc_f32(pointer, N, C, H, W) == 0, "typed-layout read PyTorch's CUDA tensor wrong"
print(f"typed-layout imported torch's channels_last CUDA tensor (strides {y.stride()}) as an NHWC device tensor: equal")
