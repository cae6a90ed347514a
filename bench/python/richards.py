"""Python twin of bench/programs/awfy/richards.mini (same algorithm, same output).

Richards from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm; the task functions are ProcessFunction subclasses as in the .mini port.
Usage: richards.py [INNER_ITERATIONS]   (default 10)
"""
import awfy

IDLER = 0
WORKER = 1
HANDLER_A = 2
HANDLER_B = 3
DEVICE_A = 4
DEVICE_B = 5
NUM_TYPES = 6

DEVICE_PACKET_KIND = 0
WORK_PACKET_KIND = 1

DATA_SIZE = 4

failed = False


class RBObject:
    def append(self, packet, queue_head):
        packet.link = None
        if queue_head is None:
            return packet
        mouse = queue_head
        link = mouse.link
        while link is not None:
            mouse = link
            link = mouse.link
        mouse.link = packet
        return queue_head


class Packet(RBObject):
    def __init__(self, link, identity, kind):
        self.link = link
        self.identity = identity
        self.kind = kind
        self.datum = 0
        self.data = [0] * DATA_SIZE


class DeviceTaskDataRecord(RBObject):
    def __init__(self):
        self.pending = None


class HandlerTaskDataRecord(RBObject):
    def __init__(self):
        self.work_in = None
        self.device_in = None

    def device_in_add(self, packet):
        self.device_in = self.append(packet, self.device_in)

    def work_in_add(self, packet):
        self.work_in = self.append(packet, self.work_in)


class IdleTaskDataRecord(RBObject):
    def __init__(self):
        self.control = 1
        self.count = 10000


class WorkerTaskDataRecord(RBObject):
    def __init__(self):
        self.destination = HANDLER_A
        self.count = 0


class TaskState(RBObject):
    def __init__(self):
        self.packet_pending = False
        self.task_waiting = False
        self.task_holding = False

    def mark_packet_pending(self):
        self.packet_pending = True
        self.task_waiting = False
        self.task_holding = False

    def mark_running(self):
        self.packet_pending = False
        self.task_waiting = False
        self.task_holding = False

    def mark_waiting(self):
        self.packet_pending = False
        self.task_holding = False
        self.task_waiting = True

    def mark_waiting_with_packet(self):
        self.task_holding = False
        self.task_waiting = True
        self.packet_pending = True

    def is_task_holding_or_waiting(self):
        return self.task_holding or (not self.packet_pending and self.task_waiting)

    def is_waiting_with_packet(self):
        return self.packet_pending and self.task_waiting and not self.task_holding


def create_running():
    t = TaskState()
    t.mark_running()
    return t


def create_waiting():
    t = TaskState()
    t.mark_waiting()
    return t


def create_waiting_with_packet():
    t = TaskState()
    t.mark_waiting_with_packet()
    return t


class ProcessFunction:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def apply(self, work, word):
        return None


class TaskControlBlock(TaskState):
    def __init__(self, link, identity, priority, initial_work_queue, initial_state, function, private_data):
        super().__init__()
        self.link = link
        self.identity = identity
        self.priority = priority
        self.input = initial_work_queue
        self.packet_pending = initial_state.packet_pending
        self.task_waiting = initial_state.task_waiting
        self.task_holding = initial_state.task_holding
        self.function = function
        self.handle = private_data

    def add_input_and_check_priority(self, packet, old_task):
        if self.input is None:
            self.input = packet
            self.packet_pending = True
            if self.priority > old_task.priority:
                return self
        else:
            self.input = self.append(packet, self.input)
        return old_task

    def run_task(self):
        message = None
        if self.is_waiting_with_packet():
            message = self.input
            self.input = message.link
            if self.input is None:
                self.mark_running()
            else:
                self.mark_packet_pending()
        return self.function.apply(message, self.handle)


class DeviceFunction(ProcessFunction):
    def apply(self, work, word):
        data_record = word
        function_work = work
        if function_work is None:
            function_work = data_record.pending
            if function_work is None:
                return self.scheduler.wait_action()
            data_record.pending = None
            return self.scheduler.queue_packet(function_work)
        data_record.pending = function_work
        return self.scheduler.hold_self()


class HandlerFunction(ProcessFunction):
    def apply(self, work, word):
        data_record = word
        if work is not None:
            if work.kind == WORK_PACKET_KIND:
                data_record.work_in_add(work)
            else:
                data_record.device_in_add(work)
        work_packet = data_record.work_in
        if work_packet is None:
            return self.scheduler.wait_action()
        count = work_packet.datum
        if count >= DATA_SIZE:
            data_record.work_in = work_packet.link
            return self.scheduler.queue_packet(work_packet)
        device_packet = data_record.device_in
        if device_packet is None:
            return self.scheduler.wait_action()
        data_record.device_in = device_packet.link
        device_packet.datum = work_packet.data[count]
        work_packet.datum = count + 1
        return self.scheduler.queue_packet(device_packet)


class IdlerFunction(ProcessFunction):
    def apply(self, work, word):
        data_record = word
        data_record.count -= 1
        if data_record.count == 0:
            return self.scheduler.hold_self()
        if (data_record.control & 1) == 0:
            data_record.control = data_record.control // 2
            return self.scheduler.release(DEVICE_A)
        data_record.control = (data_record.control // 2) ^ 53256
        return self.scheduler.release(DEVICE_B)


class WorkerFunction(ProcessFunction):
    def apply(self, work, word):
        data = word
        if work is None:
            return self.scheduler.wait_action()
        data.destination = HANDLER_B if data.destination == HANDLER_A else HANDLER_A
        work.identity = data.destination
        work.datum = 0
        for i in range(DATA_SIZE):
            data.count += 1
            if data.count > 26:
                data.count = 1
            work.data[i] = 65 + data.count - 1
        return self.scheduler.queue_packet(work)


class Scheduler(RBObject):
    def __init__(self):
        self.task_table = [None] * NUM_TYPES
        self.task_list = None
        self.current_task = None
        self.current_task_identity = 0
        self.hold_count = 0
        self.queue_packet_count = 0

    def create_device(self, identity, priority, work_packet, state):
        self.create_task(identity, priority, work_packet, state, DeviceFunction(self), DeviceTaskDataRecord())

    def create_handler(self, identity, priority, work_packet, state):
        self.create_task(identity, priority, work_packet, state, HandlerFunction(self), HandlerTaskDataRecord())

    def create_idler(self, identity, priority, work_packet, state):
        self.create_task(identity, priority, work_packet, state, IdlerFunction(self), IdleTaskDataRecord())

    def create_worker(self, identity, priority, work_packet, state):
        self.create_task(identity, priority, work_packet, state, WorkerFunction(self), WorkerTaskDataRecord())

    def create_packet(self, link, identity, kind):
        return Packet(link, identity, kind)

    def create_task(self, identity, priority, work, state, function, data):
        t = TaskControlBlock(self.task_list, identity, priority, work, state, function, data)
        self.task_list = t
        self.task_table[identity] = t

    def start(self):
        self.create_idler(IDLER, 0, None, create_running())
        work_q = self.create_packet(None, WORKER, WORK_PACKET_KIND)
        work_q = self.create_packet(work_q, WORKER, WORK_PACKET_KIND)
        self.create_worker(WORKER, 1000, work_q, create_waiting_with_packet())

        work_q = self.create_packet(None, DEVICE_A, DEVICE_PACKET_KIND)
        work_q = self.create_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND)
        work_q = self.create_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND)
        self.create_handler(HANDLER_A, 2000, work_q, create_waiting_with_packet())

        work_q = self.create_packet(None, DEVICE_B, DEVICE_PACKET_KIND)
        work_q = self.create_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND)
        work_q = self.create_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND)
        self.create_handler(HANDLER_B, 3000, work_q, create_waiting_with_packet())

        self.create_device(DEVICE_A, 4000, None, create_waiting())
        self.create_device(DEVICE_B, 5000, None, create_waiting())

        self.schedule()

        return self.queue_packet_count == 23246 and self.hold_count == 9297

    def find_task(self, identity):
        global failed
        t = self.task_table[identity]
        if t is None:
            failed = True
        return t

    def hold_self(self):
        self.hold_count += 1
        self.current_task.task_holding = True
        return self.current_task.link

    def queue_packet(self, packet):
        t = self.find_task(packet.identity)
        if t is None:
            return None
        self.queue_packet_count += 1
        packet.link = None
        packet.identity = self.current_task_identity
        return t.add_input_and_check_priority(packet, self.current_task)

    def release(self, identity):
        t = self.find_task(identity)
        if t is None:
            return None
        t.task_holding = False
        if t.priority > self.current_task.priority:
            return t
        return self.current_task

    def schedule(self):
        self.current_task = self.task_list
        while self.current_task is not None:
            if self.current_task.is_task_holding_or_waiting():
                self.current_task = self.current_task.link
            else:
                self.current_task_identity = self.current_task.identity
                self.current_task = self.current_task.run_task()

    def wait_action(self):
        self.current_task.task_waiting = True
        return self.current_task


def benchmark():
    return Scheduler().start()


def verify_result(result):
    return result and not failed


def main(inner_iterations):
    awfy.run("Richards", benchmark, verify_result, inner_iterations, result=False)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(10))
