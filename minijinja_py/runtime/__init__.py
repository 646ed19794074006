"""Runtime: the values a render works with and the one policy for what a template may do with them."""
