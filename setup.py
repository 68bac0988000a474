"""Installs the tracker's start-up hook (a .pth file) beside the packages; the rest is pyproject.toml.

The .pth line costs one environment lookup per interpreter start; only with JAX_REPRO_DIR set does it
import the tracker, which hooks jax before the program imports it. A regular wheel gets the file from
build_py; an editable wheel (``pip install -e .``) holds only a finder for the source tree and drops
build_py's extra files, so editable_wheel puts the .pth into that wheel itself.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "jax_reduce_tracker.pth"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracker", PTH)


class BuildPyWithPth(build_py):
    def run(self):
        super().run()
        self.copy_file(SOURCE, os.path.join(self.build_lib, PTH), preserve_mode=0)

    def get_output_mapping(self):
        mapping = super().get_output_mapping()
        mapping[os.path.join(self.build_lib, PTH)] = SOURCE
        return mapping

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


class EditableWheelWithPth(editable_wheel):
    # Everything in the unpacked directory goes into the editable wheel's root, i.e. site-packages.
    # (A setuptools-internal step, unchanged from 64 to 84; tests/tracker/test_final_failures.py
    # installs the project editable and checks the file is there.)
    def _run_build_commands(self, dist_name, unpacked_wheel, build_lib, tmp_dir):
        outputs = super()._run_build_commands(dist_name, unpacked_wheel, build_lib, tmp_dir)
        shutil.copyfile(SOURCE, os.path.join(unpacked_wheel, PTH))
        return outputs


setup(cmdclass={"build_py": BuildPyWithPth, "editable_wheel": EditableWheelWithPth})
