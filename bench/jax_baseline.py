#!/usr/bin/env python3
"""JAX baselines for bench/RESULTS.md (issue 8), run on the same GPU right after liebatch's:

1. the heavy top on se*(3) with RKMK4 in double, 2^20 trajectories x 1000 steps (jit + vmap +
   lax.scan), the same model, state distribution and step as bench_throughput. dexp^-1 is the
   series truncated after two commutators (enough for order 4, and cheaper than liebatch's exact
   dexp^-1, so the comparison favours JAX);
2. the Lorenz ensemble in float: RK4, dt = 0.001, 1000 steps, rho swept over [0, 21), N = 2^23,
   only the end point kept (bench_lorenz).

Before timing, the heavy-top step checks itself: |Gamma| stays 1 to 1e-12 and the end point agrees
with classical RK4 on the embedded equations at a 10x smaller step to 1e-10 (an order-3 dexp^-1
is 3e-9 off). Exit status 1 if not, 2 if jax has no GPU backend.
Usage: python3 bench/jax_baseline.py [log2 heavy-top ensemble (20)] [log2 Lorenz ensemble (23)]
"""
import sys
import time

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

INERTIA = jnp.array([2.0, 1.5, 0.8])
COM = jnp.array([0.1, 0.05, 0.5])
MG = 1.0 * 9.81


def hat(w):
    return jnp.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]], dtype=w.dtype)


def so3_exp(a):
    """Rodrigues, with Taylor coefficients below |a| = 1e-4."""
    t2 = jnp.dot(a, a)
    t = jnp.sqrt(t2)
    small = t < 1e-4
    ts = jnp.where(small, 1.0, t)
    s = jnp.where(small, 1.0 - t2 / 6.0, jnp.sin(ts) / ts)
    c = jnp.where(small, 0.5 - t2 / 24.0, (1.0 - jnp.cos(ts)) / (ts * ts))
    d = jnp.where(small, 1.0 / 6.0 - t2 / 120.0, (ts - jnp.sin(ts)) / (ts * ts * ts))
    A = hat(a)
    return jnp.eye(3) + s * A + c * A @ A, c, d


def se3_exp_act(u, y):
    """exp(u) . (Pi, Gamma) with exp(A, a) = (R, V a) and (R, t).(Pi, Gamma) = (R Pi + t x R Gamma, R Gamma)."""
    A, a = u[:3], u[3:]
    R, c, d = so3_exp(A)
    t = a + c * jnp.cross(A, a) + d * jnp.cross(A, jnp.cross(A, a))
    RG = R @ y[3:]
    return jnp.concatenate([R @ y[:3] + jnp.cross(t, RG), RG])


def bracket(u, v):
    return jnp.concatenate([jnp.cross(u[:3], v[:3]), jnp.cross(u[:3], v[3:]) - jnp.cross(v[:3], u[3:])])


def dexpinv(u, v):
    w = bracket(u, v)
    return v - 0.5 * w + bracket(u, w) / 12.0


def f(y):
    """The heavy top's f: se*(3) -> se(3), psi_*(f(y))|_y = the Lie-Poisson field."""
    return jnp.concatenate([-y[:3] / INERTIA, -MG * COM])


def rkmk4_step(y, h):
    k1 = f(y)
    u2 = 0.5 * h * k1
    k2 = dexpinv(u2, f(se3_exp_act(u2, y)))
    u3 = 0.5 * h * k2
    k3 = dexpinv(u3, f(se3_exp_act(u3, y)))
    u4 = h * k3
    k4 = dexpinv(u4, f(se3_exp_act(u4, y)))
    return se3_exp_act(h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), y)


def embedded_field(y):
    P, G = y[:3], y[3:]
    w = P / INERTIA
    return jnp.concatenate([jnp.cross(P, w) + MG * jnp.cross(G, COM), jnp.cross(G, w)])


def rk4_step(F, y, h):
    k1 = F(y)
    k2 = F(y + 0.5 * h * k1)
    k3 = F(y + 0.5 * h * k2)
    k4 = F(y + h * k3)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def integrate(step, y, h, n):
    def body(x, _):
        return step(x, h), None
    return jax.lax.scan(body, y, None, length=n)[0]


def check():
    y0 = jnp.array([0.5, 1.0, 2.0, 0.2, 0.1, 0.0])
    y0 = y0.at[3:].set(y0[3:] / jnp.linalg.norm(y0[3:]))
    a = jax.jit(lambda y: integrate(rkmk4_step, y, 1e-3, 1000))(y0)
    b = jax.jit(lambda y: integrate(lambda x, h: rk4_step(embedded_field, x, h), y, 1e-4, 10000))(y0)
    gamma = abs(float(jnp.linalg.norm(a[3:])) - 1.0)
    diff = float(jnp.max(jnp.abs(a - b)))
    print(f"self-check: ||Gamma| - 1| = {gamma:.1e}, |RKMK4 - RK4(h/10)| = {diff:.1e}")
    return gamma < 1e-12 and diff < 1e-10  # an order-3 dexp⁻¹ (1/12 term lost) differs by 3e-9


def heavy_top(log2n, steps=1000):
    n = 1 << log2n
    key = jax.random.PRNGKey(1)
    k1, k2 = jax.random.split(key)
    P = jax.random.normal(k1, (n, 3))
    G = jax.random.normal(k2, (n, 3))
    y = jnp.concatenate([P, G / jnp.linalg.norm(G, axis=1, keepdims=True)], axis=1)
    run = jax.jit(jax.vmap(lambda x: integrate(rkmk4_step, x, 1.0 / steps, steps)))
    run(y).block_until_ready()  # compile and warm up
    t = time.perf_counter()
    run(y).block_until_ready()
    dt = time.perf_counter() - t
    print(f"jax heavy top RKMK4 double: 2^{log2n} x {steps} steps in {dt:.3f} s: {n * steps / dt:.3e} trajectory-steps/s")


def lorenz(log2n, steps=1000):
    n = 1 << log2n
    rho = jnp.linspace(0.0, 21.0, n, endpoint=False, dtype=jnp.float32)

    def field(y, r):
        return jnp.stack([10.0 * (y[1] - y[0]), y[0] * (r - y[2]) - y[1], y[0] * y[1] - (8.0 / 3.0) * y[2]]).astype(jnp.float32)

    def one(r):
        return integrate(lambda x, h: rk4_step(lambda z: field(z, r), x, h), jnp.ones(3, jnp.float32), jnp.float32(0.001), steps)

    run = jax.jit(jax.vmap(one))
    run(rho).block_until_ready()  # compile and warm up
    t = time.perf_counter()
    run(rho).block_until_ready()
    dt = time.perf_counter() - t
    print(f"jax lorenz RK4 float: 2^{log2n} x {steps} steps in {1e3 * dt:.1f} ms: {n * steps / dt:.3e} trajectory-steps/s")


if __name__ == "__main__":
    print("jax", jax.__version__, "devices:", jax.devices())
    if jax.default_backend() != "gpu":
        print(f"jax runs on '{jax.default_backend()}', not a GPU: no baseline to compare with the GPU")
        sys.exit(2)
    if not check():
        print("self-check failed")
        sys.exit(1)
    heavy_top(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    lorenz(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
