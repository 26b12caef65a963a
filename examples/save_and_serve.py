"""Save a model with variables and two signatures, serve it from a fresh process, and use
the command line on the saved directory.

Run: python examples/save_and_serve.py

The serving process imports only NumPy and graphc: the saved directory holds the graphs,
the signatures and the variable values, and nothing in it is code (docs/saved_model.md).
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import graphc as gc


class Scorer:
    """A logistic scorer: weights and a bias (trainable) and a call counter (not)."""

    def __init__(self):
        self.w = gc.Variable(np.array([0.5, -1.0, 2.0], np.float32), name="w")
        self.b = gc.Variable(np.float32(0.1), name="b")
        self.served = gc.Variable(np.int64(0), name="served", trainable=False)

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def score(self, x):
        self.served.assign_add(gc.shape(x, out_type=gc.int64)[0])
        return gc.math.sigmoid(gc.reduce_sum(x * self.w, axis=1) + self.b)

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32),
                                  gc.TensorSpec([None], gc.float32)])
    def loss(self, x, y):
        p = gc.math.sigmoid(gc.reduce_sum(x * self.w, axis=1) + self.b)
        return -gc.reduce_mean(y * gc.math.log(p) + (1.0 - y) * gc.math.log(1.0 - p))


# The serving process: load once, then answer one JSON request per line.
SERVER = r"""
import json, sys
import numpy as np
import graphc as gc

model = gc.saved_model.load(sys.argv[1])
for line in sys.stdin:
    request = json.loads(line)
    fn = getattr(model, request["signature"])
    args = [np.asarray(a, np.float32) for a in request["args"]]
    print(json.dumps({"result": np.asarray(fn(*args)).tolist(),
                      "served": int(model.served.numpy())}), flush=True)
"""


def main():
    model = Scorer()
    x = np.array([[1.0, 0.5, 0.25], [-1.0, 2.0, 0.0]], np.float32)
    y = np.array([1.0, 0.0], np.float32)
    out = tempfile.mkdtemp(prefix="graphc-saved-")
    path = os.path.join(out, "scorer")
    gc.saved_model.save(model, path)
    print("saved:", sorted(os.listdir(path)))
    want_score, want_loss = model.score(x).numpy(), model.loss(x, y).numpy()

    requests = [{"signature": "score", "args": [x.tolist()]},
                {"signature": "loss", "args": [x.tolist(), y.tolist()]},
                {"signature": "score", "args": [x[:1].tolist()]}]  # another batch size
    served = subprocess.run([sys.executable, "-c", SERVER, path], text=True, check=True,
                            input="\n".join(json.dumps(r) for r in requests) + "\n",
                            capture_output=True).stdout.splitlines()
    for request, reply in zip(requests, served):
        print(f"{request['signature']:>5} -> {reply}")
    replies = [json.loads(r) for r in served]
    print("fresh process matches:",
          np.allclose(replies[0]["result"], want_score, rtol=1e-6)
          and np.isclose(replies[1]["result"], want_loss, rtol=1e-6))

    # The command line: what a directory holds, and one call from .npy files.
    np.save(os.path.join(out, "x.npy"), x)
    for args in (["show", path],
                 ["run", path, "--signature", "score", "--input",
                  f"x={os.path.join(out, 'x.npy')}"]):
        print(f"\n$ python -m graphc {args[0]} ...")
        shown = subprocess.run([sys.executable, "-m", "graphc", *args], text=True,
                               check=True, capture_output=True).stdout
        print(shown.replace(out + os.sep, ""))


if __name__ == "__main__":
    main()
