#!/bin/bash
# What a GPU figure was measured on, for the host.txt of a results folder:
# nvidia-smi's report, nvcc's release and build lines, and the UTC date.
#
#   scripts/gpu/host-info.sh > "$OUT/host.txt" 2>&1
nvidia-smi
nvcc --version | grep -E 'release|^Build'
date -u
