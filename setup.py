"""Installs the tracker's start-up hook (a .pth file) beside the packages; the rest is pyproject.toml.

The .pth line costs one environment lookup per interpreter start; only with JAX_REPRO_DIR set does it
import the tracker, which hooks jax before the program imports it.
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "jax_reduce_tracker.pth"


class BuildPyWithPth(build_py):
    def run(self):
        super().run()
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracker", PTH)
        self.copy_file(source, os.path.join(self.build_lib, PTH), preserve_mode=0)

    def get_output_mapping(self):
        mapping = super().get_output_mapping()
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracker", PTH)
        mapping[os.path.join(self.build_lib, PTH)] = source
        return mapping

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={"build_py": BuildPyWithPth})
