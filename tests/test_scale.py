"""Beyond one process, on the engines users already run (the `scale` extra; skipped when it is not installed):
10 000 conversations rendered through datasets.Dataset.map(num_proc=2) and through a Dask LocalCluster of two
worker processes, each identical to a serial render. Prints the throughput of each (run with -s to see it)."""

import time

import pytest

import minijinja_py as mj

COUNT = 10_000
SPECIAL = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                           "parameters": {"type": "object",
                                                          "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]


def conversations(count=COUNT):
    """Varied, deterministic conversations: 1 to 4 exchanges, some with a system prompt."""
    for i in range(count):
        messages = [{"role": "system", "content": f"You are assistant number {i % 7}."}] if i % 3 == 0 else []
        for turn in range(1 + i % 4):
            messages.append({"role": "user", "content": f"Question {i}.{turn}: what is {i} × {turn}?"})
            messages.append({"role": "assistant", "content": f"It is {i * turn}."})
        messages.append({"role": "user", "content": f"Thanks, {i}!"})
        yield messages


def template():
    return mj.ChatTemplate(mj.seed_template("hermes4"), special_tokens=SPECIAL)


def serial(ct, items):
    return [ct.render(messages, tools=TOOLS, add_generation_prompt=True) for messages in items]


def test_datasets_map_with_two_processes():
    datasets = pytest.importorskip("datasets")
    items = list(conversations())
    ct = template()
    expected = serial(ct, items)
    dataset = datasets.Dataset.from_dict({"messages": items})

    def to_prompt(row):  # the ChatTemplate travels to the workers pickled (by its source), compiled once there
        return {"prompt": ct.render(row["messages"], tools=TOOLS, add_generation_prompt=True)}

    start = time.perf_counter()
    rendered = dataset.map(to_prompt, num_proc=2, remove_columns=["messages"], load_from_cache_file=False)
    prompts = rendered["prompt"]
    seconds = time.perf_counter() - start
    print(f"\ndatasets.map(num_proc=2): {COUNT} conversations in {seconds:.2f} s, {COUNT / seconds:,.0f}/s")
    assert prompts == expected


def test_dask_local_cluster_with_two_worker_processes():
    pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    import dask.bag as db
    items = list(conversations())
    ct = template()
    expected = serial(ct, items)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        start = time.perf_counter()
        bag = db.from_sequence(items, npartitions=4)
        # one task per partition: the ChatTemplate is unpickled (compiled once per worker process) per task
        prompts = bag.map_partitions(lambda part: serial(ct, part)).compute()
        seconds = time.perf_counter() - start
    print(f"\nDask LocalCluster (2 worker processes): {COUNT} conversations in {seconds:.2f} s, "
          f"{COUNT / seconds:,.0f}/s")
    assert prompts == expected
