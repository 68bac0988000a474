"""Records a JAX program's call tree and emits standalone repros (not built yet)."""
