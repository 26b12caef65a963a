"""The Numba CPU backend: code generation, kernels as source, compiled helpers, runners."""
