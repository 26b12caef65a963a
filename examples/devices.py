"""Device placement, after the TensorFlow NumPy guide's "Device placement" section.

List the devices, run a small model's predictions on a GPU when there is one (graphc's
CUDA backend; Numba's simulator counts: ``NUMBA_ENABLE_CUDASIM=1``), and copy the
result back to the CPU. Without a GPU the same code runs on the CPU, with a note.
"""

import numpy as np

import graphc as gc
import graphc.numpy as gnp

print("All logical devices:", gc.config.list_logical_devices())
print("All physical devices:", gc.config.list_physical_devices())
print("Short names:", gc.config.list_devices())

# Try to get the GPU device. If unavailable, fall back to the CPU.
gpus = gc.config.list_logical_devices(device_type="GPU")
if gpus:
    device = gpus[0]
else:
    device = "/device:CPU:0"
    print("Note: no GPU here, so everything below runs on the CPU "
          "(set NUMBA_ENABLE_CUDASIM=1 to try Numba's CUDA simulator)")
print("Using device:", device)

rng = np.random.default_rng(0)
weights = [rng.standard_normal((4, 8)).astype(np.float32),
           rng.standard_normal((8, 2)).astype(np.float32)]


@gc.function
def predict(inputs, w1, w2):
    hidden = gnp.maximum(gnp.matmul(inputs, w1), 0.0)  # relu
    return gnp.tanh(gnp.matmul(hidden, w2))


def create_batch(batch_size):
    return rng.standard_normal((batch_size, 4)).astype(np.float32)


# Ops, new tensors and gc.function calls in the scope run on that device; the host
# arrays passed in are copied there at the graph's edge, the result stays there.
with gc.device(device):
    w1, w2 = gc.constant(weights[0]), gc.constant(weights[1])
    batch = gc.constant(create_batch(5))
    prediction = predict(batch, w1, w2)
    scaled = prediction * 2  # an eager op on the device, next to its operand
print("prediction lives on", prediction.device, "and scaled on", scaled.device)
print("backing device (TensorFlow's name):", prediction.backing_device)

# Copy the result to the CPU: gnp.copy under a device scope copies to that device.
with gc.device("/device:CPU:0"):
    prediction_cpu = gnp.copy(prediction)
print("copy lives on", prediction_cpu.device)

# The same numbers as NumPy on the host.
expected = np.tanh(np.maximum(batch.numpy() @ weights[0], 0) @ weights[1])
np.testing.assert_allclose(prediction_cpu.numpy(), expected, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(np.asarray(scaled), 2 * expected, rtol=1e-5, atol=1e-6)
print("predictions:\n", prediction_cpu.numpy())

# Mixing devices is an error in graphc (TensorFlow would copy silently).
if gpus:
    try:
        prediction + prediction_cpu
    except gc.errors.DeviceError as e:
        print("DeviceError:", str(e).split(". ")[0])
