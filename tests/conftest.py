"""Settings of the test session."""

import signal

# A suite started in the background by a shell without job control inherits SIGINT ignored,
# and so would every command it starts (an ignored signal stays ignored across exec): the
# tests that press Ctrl-C on a command need it delivered.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
