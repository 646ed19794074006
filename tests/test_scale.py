"""Scale-out where the work is (issue 21): conversations in 8 JSONL files rendered on a Dask LocalCluster with 1
and with 2 worker processes (each file read, rendered and written by a worker), through 🤗 datasets from the same
files (read as text, mapped and written by 1 and 2 processes), and by `batch --workers 1/2`; every way's prompts
identical to a serial render. The workload is tests/support/scale_work.py's; `benchmarks/bench_scale.py` runs it
on 200 000 conversations for the figures (this test uses 4 000 so that CI stays fast, and prints the rates: run
with -s to see them). dask[distributed] and datasets are in the `test` extra, so this runs wherever the tests do."""

import pytest

import scale_work

COUNT = 4_000

pytest.importorskip("dask.bag", reason="the test extra installs dask[distributed]")
pytest.importorskip("distributed")
pytest.importorskip("datasets", reason="the test extra installs datasets")


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parts")
    paths = scale_work.write_parts(str(folder), COUNT, parts=8)
    expected, seconds = scale_work.serial(paths)
    print(f"\none process: {COUNT} conversations in {seconds:.2f} s, {COUNT / seconds:,.0f}/s")
    return paths, expected


def _report(what, seconds):
    print(f"\n{what}: {COUNT} conversations in {seconds:.2f} s, {COUNT / seconds:,.0f}/s")


def test_the_files_hold_every_conversation(parts):
    paths, expected = parts
    assert len(paths) == 8 and len(expected) == COUNT and len(set(expected)) == COUNT


@pytest.mark.parametrize("workers", [1, 2])
def test_dask_reads_renders_and_writes_on_the_workers(parts, tmp_path, workers):
    paths, expected = parts
    prompts, seconds, startup = scale_work.dask_local(paths, str(tmp_path), workers)
    _report(f"Dask LocalCluster, {workers} worker process(es) (cluster start {startup:.1f} s apart)", seconds)
    assert prompts == expected
    assert len(list(tmp_path.glob("prompts-*.jsonl"))) == 8  # one output file per input file: written by partition


@pytest.mark.parametrize("num_proc", [1, 2])
def test_datasets_from_the_same_files(parts, tmp_path, num_proc):
    paths, expected = parts
    prompts, seconds = scale_work.with_datasets(paths, str(tmp_path), num_proc)
    _report(f"datasets, num_proc={num_proc}", seconds)
    assert prompts == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_batch_command(parts, tmp_path, workers):
    paths, expected = parts
    prompts, seconds = scale_work.batch_cli(paths, str(tmp_path), workers)
    _report(f"minijinja-py batch --workers {workers} (process start included)", seconds)
    assert prompts == expected
