-- Lua twin of bench/programs/awfy/deltablue.mini (same algorithm, same output).
-- DeltaBlue from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm with the same port choices as the .mini version (shared
-- Strength objects, a small Vector class, markInputs / inputsKnown instead of
-- closures, Direction as the ints NONE / FORWARD / BACKWARD, and a failure flag
-- instead of exceptions).
-- Usage: lua deltablue.lua [INNER_ITERATIONS]   (default 2000)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

-- A class is a metatable; a subclass looks up what it lacks in its parent.
-- Cls.new(...) makes an instance and runs its init method.
local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  c.new = function(...)
    local o = setmetatable({}, c)
    o:init(...)
    return o
  end
  return c
end

local Strength = class()

function Strength:init(arithmeticValue)
  self.arithmeticValue = arithmeticValue
end

function Strength:sameAs(s) return self.arithmeticValue == s.arithmeticValue end
function Strength:stronger(s) return self.arithmeticValue < s.arithmeticValue end
function Strength:weaker(s) return self.arithmeticValue > s.arithmeticValue end

function Strength:strongest(s)
  if s:stronger(self) then return s end
  return self
end

function Strength:weakest(s)
  if s:weaker(self) then return s end
  return self
end

local ABSOLUTE_STRONGEST = Strength.new(-10000)
local REQUIRED = Strength.new(-800)
local STRONG_PREFERRED = Strength.new(-600)
local PREFERRED = Strength.new(-400)
local STRONG_DEFAULT = Strength.new(-200)
local DEFAULT = Strength.new(0)
local WEAK_DEFAULT = Strength.new(500)
local ABSOLUTE_WEAKEST = Strength.new(10000)

local NONE = 0
local FORWARD = 1
local BACKWARD = 2

local failed = false
local failure = ""

local function fail(message)
  if not failed then failure = message end
  failed = true
end

-- The suite's som.Vector: a growable array with a moving first index. Indices
-- count from 0 as in the .mini version (index i is slot i + 1 of storage), and
-- empty slots hold `false`, since Lua tables cannot hold nil.
local Vector = class()

function Vector:init(size)
  local storage = {}
  for i = 1, size do storage[i] = false end
  self.storage = storage
  self.firstIdx = 0
  self.lastIdx = 0
end

function Vector:at(idx)
  return self.storage[self.firstIdx + idx + 1]
end

function Vector:append(elem)
  local storage = self.storage
  if self.lastIdx >= #storage then
    local n = #storage
    local newStorage = {}
    for i = 1, n do newStorage[i] = storage[i] end
    for i = n + 1, 2 * n do newStorage[i] = false end
    self.storage = newStorage
  end
  self.storage[self.lastIdx + 1] = elem
  self.lastIdx = self.lastIdx + 1
end

function Vector:isEmpty()
  return self.lastIdx == self.firstIdx
end

function Vector:size()
  return self.lastIdx - self.firstIdx
end

function Vector:removeFirst()
  if self:isEmpty() then return nil end
  self.firstIdx = self.firstIdx + 1
  return self.storage[self.firstIdx]
end

-- Removes every occurrence of obj; true if there was one.
function Vector:remove(obj)
  local storage = self.storage
  local newArray = {}
  for i = 1, #storage do newArray[i] = false end
  local newLast = 0
  local found = false
  for i = self.firstIdx, self.lastIdx - 1 do
    local it = storage[i + 1]
    if it == obj then
      found = true
    else
      newArray[newLast + 1] = it
      newLast = newLast + 1
    end
  end
  self.storage = newArray
  self.lastIdx = newLast
  self.firstIdx = 0
  return found
end

local function vectorWith(elem)
  local v = Vector.new(1)
  v:append(elem)
  return v
end

local Plan = class(Vector)

function Plan:init()
  Vector.init(self, 15)
end

function Plan:execute()
  for i = 0, self:size() - 1 do
    self:at(i):execute()
  end
end

local Variable = class()

function Variable:init()
  self.value = 0
  self.constraints = Vector.new(2)
  self.determinedBy = nil
  self.walkStrength = ABSOLUTE_WEAKEST
  self.stay = true
  self.mark = 0
end

function Variable:addConstraint(c)
  self.constraints:append(c)
end

function Variable:removeConstraint(c)
  self.constraints:remove(c)
  if self.determinedBy == c then self.determinedBy = nil end
end

local function variableWithValue(value)
  local v = Variable.new()
  v.value = value
  return v
end

-- True when v is not yet known at this mark: the suite's inputsKnown predicate.
local function inputUnknown(v, mark)
  return not (v.mark == mark or v.stay or v.determinedBy == nil)
end

local AbstractConstraint = class()

function AbstractConstraint:init(strength)
  self.strength = strength
end

function AbstractConstraint:isInput()
  return false
end

function AbstractConstraint:addConstraint(planner)
  self:addToGraph()
  planner:incrementalAdd(self)
end

function AbstractConstraint:destroyConstraint(planner)
  if self:isSatisfied() then planner:incrementalRemove(self) end
  self:removeFromGraph()
end

-- Attempts to find a way to enforce this constraint; returns the constraint it
-- overrode, if any.
function AbstractConstraint:satisfy(mark, planner)
  local overridden
  self:chooseMethod(mark)
  if self:isSatisfied() then
    self:markInputs(mark)
    local out = self:getOutput()
    overridden = out.determinedBy
    if overridden ~= nil then overridden:markUnsatisfied() end
    out.determinedBy = self
    if not planner:addPropagate(self, mark) then fail("Cycle encountered") end
    out.mark = mark
  else
    overridden = nil
    if self.strength:sameAs(REQUIRED) then fail("Could not satisfy a required constraint") end
  end
  return overridden
end

local UnaryConstraint = class(AbstractConstraint)

function UnaryConstraint:init(v, strength, planner)
  AbstractConstraint.init(self, strength)
  self.output = v
  self.satisfied = false
  self:addConstraint(planner)
end

function UnaryConstraint:isSatisfied()
  return self.satisfied
end

function UnaryConstraint:addToGraph()
  self.output:addConstraint(self)
  self.satisfied = false
end

function UnaryConstraint:removeFromGraph()
  if self.output ~= nil then self.output:removeConstraint(self) end
  self.satisfied = false
end

function UnaryConstraint:chooseMethod(mark)
  self.satisfied = self.output.mark ~= mark and self.strength:stronger(self.output.walkStrength)
end

function UnaryConstraint:markInputs(mark)
  -- has no inputs
end

function UnaryConstraint:inputsKnown(mark)
  return true
end

function UnaryConstraint:markUnsatisfied()
  self.satisfied = false
end

function UnaryConstraint:getOutput()
  return self.output
end

function UnaryConstraint:recalculate()
  self.output.walkStrength = self.strength
  self.output.stay = not self:isInput()
  if self.output.stay then self:execute() end
end

-- A constraint on a variable that the user edits (an input of the plan).
local EditConstraint = class(UnaryConstraint)

function EditConstraint:isInput()
  return true
end

function EditConstraint:execute()
  -- Edit constraints do nothing.
end

-- A constraint that keeps a variable from changing.
local StayConstraint = class(UnaryConstraint)

function StayConstraint:execute()
  -- Stay constraints do nothing.
end

local BinaryConstraint = class(AbstractConstraint)

function BinaryConstraint:init(var1, var2, strength, planner)
  AbstractConstraint.init(self, strength)
  self.v1 = var1
  self.v2 = var2
  self.direction = NONE
end

function BinaryConstraint:isSatisfied()
  return self.direction ~= NONE
end

function BinaryConstraint:addToGraph()
  self.v1:addConstraint(self)
  self.v2:addConstraint(self)
  self.direction = NONE
end

function BinaryConstraint:removeFromGraph()
  if self.v1 ~= nil then self.v1:removeConstraint(self) end
  if self.v2 ~= nil then self.v2:removeConstraint(self) end
  self.direction = NONE
end

-- Decides the direction in which to enforce this constraint, if any.
function BinaryConstraint:chooseMethod(mark)
  if self.v1.mark == mark then
    if self.v2.mark ~= mark and self.strength:stronger(self.v2.walkStrength) then
      self.direction = FORWARD
    else
      self.direction = NONE
    end
    return
  end
  if self.v2.mark == mark then
    if self.v1.mark ~= mark and self.strength:stronger(self.v1.walkStrength) then
      self.direction = BACKWARD
    else
      self.direction = NONE
    end
    return
  end
  -- Neither variable is marked, so there is a choice.
  if self.v1.walkStrength:weaker(self.v2.walkStrength) then
    if self.strength:stronger(self.v1.walkStrength) then
      self.direction = BACKWARD
    else
      self.direction = NONE
    end
  else
    if self.strength:stronger(self.v2.walkStrength) then
      self.direction = FORWARD
    else
      self.direction = NONE
    end
  end
end

function BinaryConstraint:markInputs(mark)
  if self.direction == FORWARD then
    self.v1.mark = mark
  else
    self.v2.mark = mark
  end
end

function BinaryConstraint:inputsKnown(mark)
  if self.direction == FORWARD then return not inputUnknown(self.v1, mark) end
  return not inputUnknown(self.v2, mark)
end

function BinaryConstraint:markUnsatisfied()
  self.direction = NONE
end

function BinaryConstraint:getOutput()
  if self.direction == FORWARD then return self.v2 end
  return self.v1
end

function BinaryConstraint:recalculate()
  local ihn, out
  if self.direction == FORWARD then
    ihn, out = self.v1, self.v2
  else
    ihn, out = self.v2, self.v1
  end
  out.walkStrength = self.strength:weakest(ihn.walkStrength)
  out.stay = ihn.stay
  if out.stay then self:execute() end
end

-- v1 == v2.
local EqualityConstraint = class(BinaryConstraint)

function EqualityConstraint:init(var1, var2, strength, planner)
  BinaryConstraint.init(self, var1, var2, strength, planner)
  self:addConstraint(planner)
end

function EqualityConstraint:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value
  else
    self.v1.value = self.v2.value
  end
end

-- int / int truncating toward zero, as in mini and Java (Lua's // floors).
local function intDiv(a, b)
  local q = math.abs(a) // math.abs(b)
  if (a < 0) == (b < 0) then return q end
  return -q
end

-- v2 == v1 * scale + offset.
local ScaleConstraint = class(BinaryConstraint)

function ScaleConstraint:init(src, scale, offset, dest, strength, planner)
  BinaryConstraint.init(self, src, dest, strength, planner)
  self.scale = scale
  self.offset = offset
  self:addConstraint(planner)
end

function ScaleConstraint:addToGraph()
  self.v1:addConstraint(self)
  self.v2:addConstraint(self)
  self.scale:addConstraint(self)
  self.offset:addConstraint(self)
  self.direction = NONE
end

function ScaleConstraint:removeFromGraph()
  if self.v1 ~= nil then self.v1:removeConstraint(self) end
  if self.v2 ~= nil then self.v2:removeConstraint(self) end
  if self.scale ~= nil then self.scale:removeConstraint(self) end
  if self.offset ~= nil then self.offset:removeConstraint(self) end
  self.direction = NONE
end

function ScaleConstraint:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value * self.scale.value + self.offset.value
  else
    self.v1.value = intDiv(self.v2.value - self.offset.value, self.scale.value)
  end
end

function ScaleConstraint:markInputs(mark)
  if self.direction == FORWARD then
    self.v1.mark = mark
  else
    self.v2.mark = mark
  end
  self.scale.mark = mark
  self.offset.mark = mark
end

function ScaleConstraint:inputsKnown(mark)
  local first = self.v2
  if self.direction == FORWARD then first = self.v1 end
  return not (inputUnknown(first, mark) or inputUnknown(self.scale, mark)
              or inputUnknown(self.offset, mark))
end

function ScaleConstraint:recalculate()
  local ihn, out
  if self.direction == FORWARD then
    ihn, out = self.v1, self.v2
  else
    out, ihn = self.v1, self.v2
  end
  out.walkStrength = self.strength:weakest(ihn.walkStrength)
  out.stay = ihn.stay and self.scale.stay and self.offset.stay
  if out.stay then self:execute() end
end

local Planner = class()

function Planner:init()
  self.currentMark = 1
end

-- Attempts to satisfy the given constraint and, if successful, incrementally
-- updates the dataflow graph.
function Planner:incrementalAdd(c)
  local mark = self:newMark()
  local overridden = c:satisfy(mark, self)
  while overridden ~= nil do
    overridden = overridden:satisfy(mark, self)
  end
end

-- Retracts the given constraint and incrementally updates the dataflow graph.
function Planner:incrementalRemove(c)
  local out = c:getOutput()
  c:markUnsatisfied()
  c:removeFromGraph()
  local unsatisfied = self:removePropagateFrom(out)
  for i = 0, unsatisfied:size() - 1 do
    self:incrementalAdd(unsatisfied:at(i))
  end
end

function Planner:extractPlanFromConstraints(constraints)
  local sources = Vector.new(50)
  for i = 0, constraints:size() - 1 do
    local c = constraints:at(i)
    if c:isInput() and c:isSatisfied() then sources:append(c) end
  end
  return self:makePlan(sources)
end

function Planner:makePlan(sources)
  local mark = self:newMark()
  local plan = Plan.new()
  local todo = sources
  while not todo:isEmpty() do
    local c = todo:removeFirst()
    if c:getOutput().mark ~= mark and c:inputsKnown(mark) then
      -- not in plan already and eligible for inclusion
      plan:append(c)
      c:getOutput().mark = mark
      self:addConstraintsConsumingTo(c:getOutput(), todo)
    end
  end
  return plan
end

function Planner:addConstraintsConsumingTo(v, coll)
  local determining = v.determinedBy
  local cs = v.constraints
  for i = 0, cs:size() - 1 do
    local c = cs:at(i)
    if c ~= determining and c:isSatisfied() then coll:append(c) end
  end
end

-- Recomputes the walkabout strengths and stay flags downstream of c; false if a
-- cycle is found.
function Planner:addPropagate(c, mark)
  local todo = vectorWith(c)
  while not todo:isEmpty() do
    local d = todo:removeFirst()
    if d:getOutput().mark == mark then
      self:incrementalRemove(c)
      return false
    end
    d:recalculate()
    self:addConstraintsConsumingTo(d:getOutput(), todo)
  end
  return true
end

-- Updates the walkabout strengths and stay flags of everything downstream of
-- out; returns the unsatisfied constraints found on the way.
function Planner:removePropagateFrom(out)
  local unsatisfied = Vector.new(50)
  out.determinedBy = nil
  out.walkStrength = ABSOLUTE_WEAKEST
  out.stay = true
  local todo = Vector.new(1)
  todo:append(out)
  while not todo:isEmpty() do
    local v = todo:removeFirst()
    local cs = v.constraints
    for i = 0, cs:size() - 1 do
      local c = cs:at(i)
      if not c:isSatisfied() then unsatisfied:append(c) end
    end
    local determining = v.determinedBy
    for i = 0, cs:size() - 1 do
      local nxt = cs:at(i)
      if nxt ~= determining and nxt:isSatisfied() then
        nxt:recalculate()
        todo:append(nxt:getOutput())
      end
    end
  end
  return unsatisfied
end

function Planner:change(v, newValue)
  local editC = EditConstraint.new(v, PREFERRED, self)
  local editV = vectorWith(editC)
  local plan = self:extractPlanFromConstraints(editV)
  for _ = 1, 10 do
    v.value = newValue
    plan:execute()
  end
  editC:destroyConstraint(self)
end

function Planner:newMark()
  self.currentMark = self.currentMark + 1
  return self.currentMark
end

-- A chain of equality constraints from an edited first variable to a stayed
-- last one; the plan must carry every edit down the chain. variables[i + 1] is
-- the .mini version's vars[i].
local function chainTest(n)
  local planner = Planner.new()
  local variables = {}
  for i = 1, n + 1 do variables[i] = Variable.new() end
  for i = 1, n do
    EqualityConstraint.new(variables[i], variables[i + 1], REQUIRED, planner)
  end
  StayConstraint.new(variables[n + 1], STRONG_DEFAULT, planner)
  local editC = EditConstraint.new(variables[1], PREFERRED, planner)
  local editV = vectorWith(editC)
  local plan = planner:extractPlanFromConstraints(editV)
  for i = 0, 99 do
    variables[1].value = i
    plan:execute()
    if variables[n + 1].value ~= i then fail("Chain test failed!") end
  end
  editC:destroyConstraint(planner)
end

-- n source/destination pairs related by scale and offset; changing either side
-- or the shared scale and offset must update the other.
local function projectionTest(n)
  local planner = Planner.new()
  local dests = Vector.new(50)
  local scale = variableWithValue(10)
  local offset = variableWithValue(1000)
  local src, dst = nil, nil
  for i = 1, n do
    src = variableWithValue(i)
    dst = variableWithValue(i)
    dests:append(dst)
    StayConstraint.new(src, DEFAULT, planner)
    ScaleConstraint.new(src, scale, offset, dst, REQUIRED, planner)
  end

  planner:change(src, 17)
  if dst.value ~= 1170 then fail("Projection test 1 failed!") end
  planner:change(dst, 1050)
  if src.value ~= 5 then fail("Projection test 2 failed!") end
  planner:change(scale, 5)
  for i = 0, n - 2 do
    if dests:at(i).value ~= (i + 1) * 5 + 1000 then fail("Projection test 3 failed!") end
  end
  planner:change(offset, 2000)
  for i = 0, n - 2 do
    if dests:at(i).value ~= (i + 1) * 5 + 2000 then fail("Projection test 4 failed!") end
  end
end

local function innerBenchmarkLoop(innerIterations)
  chainTest(innerIterations)
  projectionTest(innerIterations)
  return not failed
end

local innerIterations = awfy.innerIterations(2000)
local ok = innerBenchmarkLoop(innerIterations)
if failed then print(failure) end
print("DeltaBlue: " .. tostring(ok))
print("verified: " .. awfy.show(ok))
