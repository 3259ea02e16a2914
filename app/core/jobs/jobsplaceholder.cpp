// Replaced by the component's first real source file.
