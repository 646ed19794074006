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
