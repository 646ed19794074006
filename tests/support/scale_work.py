"""The scale-out workload of tests/test_scale.py and benchmarks/bench_scale.py: conversations in JSONL files →
prompts, rendered serially, on a Dask LocalCluster (files read, rendered and written by partition on the
workers), through 🤗 datasets (files read as text, mapped and written by num_proc processes), and by
`minijinja-py batch`. Each way returns its prompts in input order and the seconds its work took."""

import glob
import json
import os
import subprocess
import sys
import time

import minijinja_py as mj

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = "hermes4"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                           "parameters": {"type": "object",
                                                          "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]


def conversation(i):
    """A varied, deterministic conversation line: 1 to 4 exchanges, some with a system prompt, with tools."""
    messages = [{"role": "system", "content": f"You are assistant number {i % 7}."}] if i % 3 == 0 else []
    for turn in range(1 + i % 4):
        messages.append({"role": "user", "content": f"Question {i}.{turn}: what is {i} × {turn}?"})
        messages.append({"role": "assistant", "content": f"It is {i * turn}."})
    messages.append({"role": "user", "content": f"Thanks, {i}!"})
    return {"messages": messages, "tools": TOOLS, "add_generation_prompt": True}


def write_parts(folder, count, parts=8):
    """`count` conversations in `parts` JSONL files, conversation i in file i * parts // count; the paths."""
    paths = [os.path.join(folder, f"part-{p}.jsonl") for p in range(parts)]
    files = [open(path, "w", encoding="utf-8") for path in paths]
    try:
        for i in range(count):
            files[i * parts // count].write(json.dumps(conversation(i), ensure_ascii=False) + "\n")
    finally:
        for f in files:
            f.close()
    return paths


def chat_template():
    return mj.ChatTemplate(mj.seed_template(TEMPLATE), special_tokens=mj.seed_special_tokens(TEMPLATE))


def render_lines(template, lines):
    """JSONL lines of conversations → JSONL lines of {"prompt": ...}: what every way below runs per line."""
    out = []
    for line in lines:
        data = json.loads(line)
        prompt = template.render(data.pop("messages"), **data)
        out.append(json.dumps({"prompt": prompt}, ensure_ascii=False))
    return out


def _prompts(lines):
    return [json.loads(line)["prompt"] for line in lines if line.strip()]


def serial(paths):
    """One process: read, render, keep; (prompts, seconds)."""
    template = chat_template()
    start = time.perf_counter()
    lines = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines.extend(render_lines(template, f))
    return _prompts(lines), time.perf_counter() - start


def dask_local(paths, out_folder, workers):
    """A LocalCluster of `workers` single-thread processes: each file is one partition, read by a worker
    (dask.bag.read_text), rendered there and written there (to_textfiles). (prompts, seconds of the job,
    seconds to start the cluster)."""
    import cloudpickle
    import dask.bag as db
    from distributed import Client, LocalCluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # this helper module is not on the workers' path
    template = chat_template()
    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: None)  # every worker up
        started = time.perf_counter()
        bag = db.read_text(paths, blocksize=None)
        bag.map_partitions(lambda lines: render_lines(template, lines)).to_textfiles(
            os.path.join(out_folder, "prompts-*.jsonl"))
        seconds = time.perf_counter() - started
    outputs = sorted(glob.glob(os.path.join(out_folder, "prompts-*.jsonl")),
                     key=lambda p: int(os.path.basename(p)[len("prompts-"):-len(".jsonl")]))
    lines = []
    for path in outputs:
        with open(path, encoding="utf-8") as f:
            lines.extend(f)
    return _prompts(lines), seconds, started - start


def with_datasets(paths, out_folder, num_proc):
    """🤗 datasets: the files read as text (each line kept as written: a JSON reader would unify the
    conversations' shapes, adding null keys), mapped in batches by num_proc processes, written as JSON lines.
    (prompts, seconds)."""
    import datasets
    datasets.disable_progress_bars()
    template = chat_template()
    cache = os.path.join(out_folder, "cache")
    start = time.perf_counter()
    lines = datasets.load_dataset("text", data_files=paths, split="train", cache_dir=cache,
                                  num_proc=num_proc if num_proc > 1 else None)

    def to_prompts(batch):
        return {"prompt": [json.loads(x)["prompt"] for x in render_lines(template, batch["text"])]}

    rendered = lines.map(to_prompts, batched=True, batch_size=1000, num_proc=num_proc if num_proc > 1 else None,
                         remove_columns=["text"], load_from_cache_file=False)
    out = os.path.join(out_folder, "prompts.jsonl")
    rendered.to_json(out, num_proc=num_proc if num_proc > 1 else None, force_ascii=False)
    seconds = time.perf_counter() - start
    with open(out, encoding="utf-8") as f:
        return _prompts(f), seconds


def batch_cli(paths, out_folder, workers):
    """`python -m minijinja_py batch` over the files joined into one: (prompts, seconds of the command)."""
    joined = os.path.join(out_folder, "all.jsonl")
    if not os.path.exists(joined):
        with open(joined, "wb") as out:
            for path in paths:
                with open(path, "rb") as f:
                    out.write(f.read())
    out = os.path.join(out_folder, f"batch-{workers}.jsonl")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "minijinja_py", "batch", TEMPLATE, joined, "-o", out, "--workers",
                    str(workers), "--quiet"], check=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    with open(out, encoding="utf-8") as f:
        return _prompts(f), seconds
