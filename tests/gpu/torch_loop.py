# SPDX-License-Identifier: BSD-3-Clause
"""A PyTorch training-like loop for the real-GPU check (tests/gpu/check.sh).

Each step: bf16 matrix multiplications (Tensor Core GEMMs) and a small MLP with
its backward pass, inside torch.cuda.nvtx.range_push("step").  Modes:
  plain     run and time the steps
  strata    the same (run under Strata's preloaded libraries by check.sh)
  profiler  under torch.profiler: the number of launches of each kernel, as JSON
Prints one JSON line: mode, steps, seconds per step (after warm-up).
"""
import json
import sys
import time

import torch


def work(steps, emit):
    """Set-up, three warm-up steps and `steps` timed steps; returns the timed seconds."""
    torch.manual_seed(0)
    dev = torch.device("cuda")
    a = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    mlp = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.01)
    x = torch.randn(256, 512, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)

    def step():
        torch.cuda.nvtx.range_push("step")
        c = a @ b
        c = c @ b
        loss = torch.nn.functional.cross_entropy(mlp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        return c

    for _ in range(3):  # warm-up: cuBLAS handles, kernels loaded
        step()
    t0 = time.perf_counter()
    if emit:
        with torch.autograd.profiler.emit_nvtx():
            for _ in range(steps):
                step()
    else:
        for _ in range(steps):
            step()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def main():
    mode = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    out = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
    emit = "--emit-nvtx" in sys.argv
    if mode == "profiler":
        # The whole work, set-up included, as a Strata run sees it: the counts compare one to one.
        from torch.profiler import ProfilerActivity, profile
        # CPU too: the operator table (aten::...) comes from the CPU side.
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            elapsed = work(steps, emit)
        counts = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                counts[e.name] = counts.get(e.name, 0) + 1
        # The operator table, for the ops view (calls and GPU time per aten:: operator).
        ops = {}
        for a in prof.key_averages():
            if a.key.startswith("aten::"):
                device = getattr(a, "device_time_total", None)
                if device is None:
                    device = getattr(a, "cuda_time_total", 0)
                self_device = getattr(a, "self_device_time_total", None)
                if self_device is None:
                    self_device = getattr(a, "self_cuda_time_total", 0)
                ops[a.key] = {"calls": a.count, "device_us": device, "self_device_us": self_device}
        if out:
            with open(out, "w") as f:
                json.dump({"steps": steps + 3, "kernels": counts, "ops": ops}, f, indent=1)
    else:
        elapsed = work(steps, emit)
    print(json.dumps({"mode": mode, "steps": steps, "seconds_per_step": elapsed / steps, "emit_nvtx": emit}))


if __name__ == "__main__":
    main()
