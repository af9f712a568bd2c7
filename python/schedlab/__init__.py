"""schedlab's external-policy client: write a scheduling policy in Python
and let schedlab's simulator drive it through the protocol of
docs/policy-protocol.md (JSON lines over the policy's stdin and stdout).

    from schedlab import Policy, run, start

    class Mine(Policy):
        def schedule(self, state):
            ...  # return a list of start(job, servers)

    if __name__ == "__main__":
        run(Mine())

SchedlabEnv (schedlab.env) is the same protocol seen from the other side:
a Gymnasium-style environment that starts schedlab and steps through its
decision points. Standard library only.
"""

from .protocol import (
    EPS,
    PROTOCOL,
    Job,
    Policy,
    ProtocolError,
    Server,
    State,
    fits,
    place_in_order,
    preempt,
    run,
    start,
)

__all__ = [
    "EPS",
    "PROTOCOL",
    "Job",
    "Policy",
    "ProtocolError",
    "Server",
    "State",
    "fits",
    "place_in_order",
    "preempt",
    "run",
    "start",
]
