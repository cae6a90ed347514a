-- Lua twin of bench/programs/awfy/richards.mini (same algorithm, same output).
-- Richards from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm; the task functions are "classes" with an apply method, as
-- in the .mini port. Usage: lua richards.lua [INNER_ITERATIONS]   (default 10)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local IDLER, WORKER, HANDLER_A, HANDLER_B, DEVICE_A, DEVICE_B = 0, 1, 2, 3, 4, 5
local NUM_TYPES = 6
local DEVICE_PACKET_KIND, WORK_PACKET_KIND = 0, 1
local DATA_SIZE = 4

local failed = false

local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  return c
end

local RBObject = class()

function RBObject:append(packet, queueHead)
  packet.link = nil
  if queueHead == nil then return packet end
  local mouse = queueHead
  local link = mouse.link
  while link ~= nil do
    mouse = link
    link = mouse.link
  end
  mouse.link = packet
  return queueHead
end

local Packet = class(RBObject)

function Packet.new(link, identity, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({ link = link, identity = identity, kind = kind, datum = 0, data = data }, Packet)
end

local DeviceTaskDataRecord = class(RBObject)
function DeviceTaskDataRecord.new() return setmetatable({ pending = nil }, DeviceTaskDataRecord) end

local HandlerTaskDataRecord = class(RBObject)
function HandlerTaskDataRecord.new() return setmetatable({ workIn = nil, deviceIn = nil }, HandlerTaskDataRecord) end
function HandlerTaskDataRecord:deviceInAdd(packet) self.deviceIn = self:append(packet, self.deviceIn) end
function HandlerTaskDataRecord:workInAdd(packet) self.workIn = self:append(packet, self.workIn) end

local IdleTaskDataRecord = class(RBObject)
function IdleTaskDataRecord.new() return setmetatable({ control = 1, count = 10000 }, IdleTaskDataRecord) end

local WorkerTaskDataRecord = class(RBObject)
function WorkerTaskDataRecord.new() return setmetatable({ destination = HANDLER_A, count = 0 }, WorkerTaskDataRecord) end

local TaskState = class(RBObject)

function TaskState.new()
  return setmetatable({ packetPending = false, taskWaiting = false, taskHolding = false }, TaskState)
end

function TaskState:markPacketPending()
  self.packetPending = true
  self.taskWaiting = false
  self.taskHolding = false
end

function TaskState:markRunning()
  self.packetPending = false
  self.taskWaiting = false
  self.taskHolding = false
end

function TaskState:markWaiting()
  self.packetPending = false
  self.taskHolding = false
  self.taskWaiting = true
end

function TaskState:markWaitingWithPacket()
  self.taskHolding = false
  self.taskWaiting = true
  self.packetPending = true
end

function TaskState:isTaskHoldingOrWaiting()
  return self.taskHolding or (not self.packetPending and self.taskWaiting)
end

function TaskState:isWaitingWithPacket()
  return self.packetPending and self.taskWaiting and not self.taskHolding
end

local function createRunning() local t = TaskState.new(); t:markRunning(); return t end
local function createWaiting() local t = TaskState.new(); t:markWaiting(); return t end
local function createWaitingWithPacket() local t = TaskState.new(); t:markWaitingWithPacket(); return t end

local TaskControlBlock = class(TaskState)

function TaskControlBlock.new(link, identity, priority, initialWorkQueue, initialState, fn, privateData)
  return setmetatable({
    link = link, identity = identity, priority = priority, input = initialWorkQueue,
    packetPending = initialState.packetPending, taskWaiting = initialState.taskWaiting,
    taskHolding = initialState.taskHolding, fn = fn, handle = privateData,
  }, TaskControlBlock)
end

function TaskControlBlock:addInputAndCheckPriority(packet, oldTask)
  if self.input == nil then
    self.input = packet
    self.packetPending = true
    if self.priority > oldTask.priority then return self end
  else
    self.input = self:append(packet, self.input)
  end
  return oldTask
end

function TaskControlBlock:runTask()
  local message = nil
  if self:isWaitingWithPacket() then
    message = self.input
    self.input = message.link
    if self.input == nil then
      self:markRunning()
    else
      self:markPacketPending()
    end
  end
  return self.fn:apply(message, self.handle)
end

local DeviceFunction = class()
function DeviceFunction.new(s) return setmetatable({ scheduler = s }, DeviceFunction) end
function DeviceFunction:apply(work, dataRecord)
  local functionWork = work
  if functionWork == nil then
    functionWork = dataRecord.pending
    if functionWork == nil then
      return self.scheduler:waitAction()
    end
    dataRecord.pending = nil
    return self.scheduler:queuePacket(functionWork)
  end
  dataRecord.pending = functionWork
  return self.scheduler:holdSelf()
end

local HandlerFunction = class()
function HandlerFunction.new(s) return setmetatable({ scheduler = s }, HandlerFunction) end
function HandlerFunction:apply(work, dataRecord)
  if work ~= nil then
    if work.kind == WORK_PACKET_KIND then
      dataRecord:workInAdd(work)
    else
      dataRecord:deviceInAdd(work)
    end
  end
  local workPacket = dataRecord.workIn
  if workPacket == nil then
    return self.scheduler:waitAction()
  end
  local count = workPacket.datum
  if count >= DATA_SIZE then
    dataRecord.workIn = workPacket.link
    return self.scheduler:queuePacket(workPacket)
  end
  local devicePacket = dataRecord.deviceIn
  if devicePacket == nil then
    return self.scheduler:waitAction()
  end
  dataRecord.deviceIn = devicePacket.link
  devicePacket.datum = workPacket.data[count + 1]
  workPacket.datum = count + 1
  return self.scheduler:queuePacket(devicePacket)
end

local IdlerFunction = class()
function IdlerFunction.new(s) return setmetatable({ scheduler = s }, IdlerFunction) end
function IdlerFunction:apply(work, dataRecord)
  dataRecord.count = dataRecord.count - 1
  if dataRecord.count == 0 then
    return self.scheduler:holdSelf()
  end
  if (dataRecord.control & 1) == 0 then
    dataRecord.control = dataRecord.control // 2
    return self.scheduler:release(DEVICE_A)
  end
  dataRecord.control = (dataRecord.control // 2) ~ 53256
  return self.scheduler:release(DEVICE_B)
end

local WorkerFunction = class()
function WorkerFunction.new(s) return setmetatable({ scheduler = s }, WorkerFunction) end
function WorkerFunction:apply(work, data)
  if work == nil then
    return self.scheduler:waitAction()
  end
  if data.destination == HANDLER_A then data.destination = HANDLER_B else data.destination = HANDLER_A end
  work.identity = data.destination
  work.datum = 0
  for i = 1, DATA_SIZE do
    data.count = data.count + 1
    if data.count > 26 then data.count = 1 end
    work.data[i] = 65 + data.count - 1
  end
  return self.scheduler:queuePacket(work)
end

local Scheduler = class(RBObject)

function Scheduler.new()
  return setmetatable({
    taskTable = {}, taskList = nil, currentTask = nil, currentTaskIdentity = 0,
    holdCount = 0, queuePacketCount = 0,
  }, Scheduler)
end

function Scheduler:createTask(identity, priority, work, state, fn, data)
  local t = TaskControlBlock.new(self.taskList, identity, priority, work, state, fn, data)
  self.taskList = t
  self.taskTable[identity] = t
end

function Scheduler:createDevice(identity, priority, workPacket, state)
  self:createTask(identity, priority, workPacket, state, DeviceFunction.new(self), DeviceTaskDataRecord.new())
end

function Scheduler:createHandler(identity, priority, workPacket, state)
  self:createTask(identity, priority, workPacket, state, HandlerFunction.new(self), HandlerTaskDataRecord.new())
end

function Scheduler:createIdler(identity, priority, workPacket, state)
  self:createTask(identity, priority, workPacket, state, IdlerFunction.new(self), IdleTaskDataRecord.new())
end

function Scheduler:createWorker(identity, priority, workPacket, state)
  self:createTask(identity, priority, workPacket, state, WorkerFunction.new(self), WorkerTaskDataRecord.new())
end

function Scheduler:createPacket(link, identity, kind)
  return Packet.new(link, identity, kind)
end

function Scheduler:start()
  self:createIdler(IDLER, 0, nil, createRunning())
  local workQ = self:createPacket(nil, WORKER, WORK_PACKET_KIND)
  workQ = self:createPacket(workQ, WORKER, WORK_PACKET_KIND)
  self:createWorker(WORKER, 1000, workQ, createWaitingWithPacket())

  workQ = self:createPacket(nil, DEVICE_A, DEVICE_PACKET_KIND)
  workQ = self:createPacket(workQ, DEVICE_A, DEVICE_PACKET_KIND)
  workQ = self:createPacket(workQ, DEVICE_A, DEVICE_PACKET_KIND)
  self:createHandler(HANDLER_A, 2000, workQ, createWaitingWithPacket())

  workQ = self:createPacket(nil, DEVICE_B, DEVICE_PACKET_KIND)
  workQ = self:createPacket(workQ, DEVICE_B, DEVICE_PACKET_KIND)
  workQ = self:createPacket(workQ, DEVICE_B, DEVICE_PACKET_KIND)
  self:createHandler(HANDLER_B, 3000, workQ, createWaitingWithPacket())

  self:createDevice(DEVICE_A, 4000, nil, createWaiting())
  self:createDevice(DEVICE_B, 5000, nil, createWaiting())

  self:schedule()

  return self.queuePacketCount == 23246 and self.holdCount == 9297
end

function Scheduler:findTask(identity)
  local t = self.taskTable[identity]
  if t == nil then failed = true end
  return t
end

function Scheduler:holdSelf()
  self.holdCount = self.holdCount + 1
  self.currentTask.taskHolding = true
  return self.currentTask.link
end

function Scheduler:queuePacket(packet)
  local t = self:findTask(packet.identity)
  if t == nil then return nil end
  self.queuePacketCount = self.queuePacketCount + 1
  packet.link = nil
  packet.identity = self.currentTaskIdentity
  return t:addInputAndCheckPriority(packet, self.currentTask)
end

function Scheduler:release(identity)
  local t = self:findTask(identity)
  if t == nil then return nil end
  t.taskHolding = false
  if t.priority > self.currentTask.priority then return t end
  return self.currentTask
end

function Scheduler:schedule()
  self.currentTask = self.taskList
  while self.currentTask ~= nil do
    if self.currentTask:isTaskHoldingOrWaiting() then
      self.currentTask = self.currentTask.link
    else
      self.currentTaskIdentity = self.currentTask.identity
      self.currentTask = self.currentTask:runTask()
    end
  end
end

function Scheduler:waitAction()
  self.currentTask.taskWaiting = true
  return self.currentTask
end

local function benchmark()
  return Scheduler.new():start()
end

local function verifyResult(result)
  return result and not failed
end

awfy.run("Richards", benchmark, verifyResult, awfy.innerIterations(10), false)
