"""Functions the multiprocessing tests send to worker processes (importable by name in a spawned child)."""

MESSAGES = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]


def render_in_worker(template, messages=None):
    return template.render(messages or MESSAGES, add_generation_prompt=True)


def render_or_error(template, messages):
    """(prompt, None) or (None, the error): the error itself travels back pickled."""
    try:
        return template.render(messages), None
    except Exception as exc:  # noqa: BLE001 - the test looks at whatever came back
        return None, exc


def raise_in_worker(template, messages):
    return template.render(messages)


# Module-level (so picklable by reference) filters, tests, finalize and load functions of the environments
# tests/test_pickling.py sends to worker processes.
def shout(value):
    return str(value).upper() + "!"


def is_short(value):
    return len(value) < 5


def finalize_none(value):
    return "-" if value is None else value


def load_by_function(name):
    return {"fn.txt": "from a function: {{ x }}"}.get(name)


def render_template(template, variables):
    """A plain Template rendered in a worker: (text, None) or (None, the error)."""
    try:
        return template.render(**variables), None
    except Exception as exc:  # noqa: BLE001 - the test looks at whatever came back
        return None, exc


def compiled_identity(pickled_twice):
    """In a worker: are two unpickles of one pickled Template one compiled object?"""
    import pickle
    return pickle.loads(pickled_twice[0]) is pickle.loads(pickled_twice[1])


def slow_first(context, item):
    """ordered_results' function for the window test: item 0 waits until the others are done (a worker the
    machine's scheduler left behind), the others answer at once."""
    import os
    import time
    if item == 0:
        deadline = time.monotonic() + 30
        while not os.path.exists(context) and time.monotonic() < deadline:
            time.sleep(0.01)
    elif item == 5:  # the last item the window (2 workers x WINDOW 3) lets out while item 0 is held
        open(context, "w").close()
    return item
