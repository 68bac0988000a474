"""Run the mf77 trap simulation for a grid of particle counts and report energy drift."""

import json
import sys

import jax.numpy as jnp

import mf77.physics as physics
import mf77.state

RUNS = [{"n": 8, "dim": 2, "steps": 50}, {"n": 27, "dim": 3, "steps": 50}]


def step(run, dtype):
    # One experiment: build the lattice, integrate, measure how far the energy wandered.
    state = mf77.state.make_state(run["n"], run["dim"], dtype=dtype)
    final, energies = physics.simulate(state, run["steps"])
    drift = float(jnp.max(energies) - jnp.min(energies))
    return {"n": run["n"], "dim": run["dim"], "drift": drift, "final_energy": float(final.energy)}


def main(argv):
    # Lattice positions are integers, so the setup script asks for an integer state to save memory.
    dtype = argv[1] if len(argv) > 1 else "int"
    results = [step(run, dtype) for run in RUNS]
    print(json.dumps(results, indent=1))
    worst = max(results, key=lambda r: r["drift"])
    print(f"worst drift {worst['drift']:.2e} at n={worst['n']} (dt={physics.DT})")


if __name__ == "__main__":
    main(sys.argv)
