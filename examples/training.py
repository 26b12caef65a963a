"""Training a small MLP with gc.GradientTape and plain SGD, compiled as one program.

The model is the TF NumPy guide's: ``pred = relu(x @ w1 + b) @ w2``. The training step
is a ``gc.function``: the forward pass, the backward pass the tape builds and the
variable updates all trace into one graph, which graphc optimizes and compiles.

    python examples/training.py
"""

import numpy as np

import graphc as gc
import graphc.numpy as gnp

rng = np.random.default_rng(0)

# Synthetic regression data: a fixed random "teacher" network makes the labels.
x_data = rng.normal(size=(512, 32)).astype(np.float32)
teacher_w1 = rng.normal(size=(32, 16)).astype(np.float32)
teacher_w2 = rng.normal(size=(16, 2)).astype(np.float32) / 4
labels = (np.maximum(x_data @ teacher_w1, 0) @ teacher_w2).astype(np.float32)

w1 = gc.Variable(rng.normal(size=(32, 64)).astype(np.float32) * 0.1, name="w1")
b = gc.Variable(np.zeros(64, np.float32), name="b")
w2 = gc.Variable(rng.normal(size=(64, 2)).astype(np.float32) * 0.1, name="w2")
params = [w1, b, w2]
learning_rate = 0.01


def predict(x):
    return gnp.maximum(x @ w1 + b, 0.0) @ w2


@gc.function
def train_step(x, y):
    with gc.GradientTape() as tape:          # watches the trainable variables it reads
        loss = gnp.mean((predict(x) - y) ** 2)
    grads = tape.gradient(loss, params)
    for v, g in zip(params, grads):
        v.assign_sub(learning_rate * g)      # SGD
    return loss


x, y = gnp.asarray(x_data), gnp.asarray(labels)
first = None
for step in range(301):
    loss = float(train_step(x, y))
    first = loss if first is None else first
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
assert loss < first / 2, "the loss should fall"
print(f"loss fell from {first:.4f} to {loss:.4f}; train_step traced "
      f"{len(train_step.retrace_reasons)} time(s)")
