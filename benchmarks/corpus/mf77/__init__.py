"""Particles in a harmonic trap: state construction and the integrator for the 77 script."""
