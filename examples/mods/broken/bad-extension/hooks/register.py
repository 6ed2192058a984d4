def register(on, options):
    pass
