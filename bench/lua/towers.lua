-- Lua twin of bench/programs/awfy/towers.mini (same algorithm, same output).
-- Towers from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm: the towers of Hanoi with 13 disks, each disk an object on
-- a linked stack per pile. An illegal move sets `failed`, as in the .mini port.
-- Usage: lua towers.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

-- Null references are `false` here: Lua tables cannot hold nil, so the three
-- pile slots and a disk's `next` hold false when empty.
local TowersDisk = {}
TowersDisk.__index = TowersDisk

function TowersDisk.new(size)
  return setmetatable({ size = size, next = false }, TowersDisk)
end

local Towers = {}
Towers.__index = Towers

function Towers.new()
  return setmetatable({ piles = false, movesDone = 0, failed = false }, Towers)
end

function Towers:benchmark()
  self.piles = { false, false, false }
  self:buildTowerAt(0, 13)
  self.movesDone = 0
  self:moveDisks(13, 0, 1)
  return self.movesDone
end

function Towers:verifyResult(result)
  return not self.failed and result == 8191
end

-- Piles are numbered 0..2 as in the .mini version; pile p is slot p + 1.
function Towers:pushDisk(disk, pile)
  local top = self.piles[pile + 1]
  if top ~= false and disk.size >= top.size then
    self.failed = true -- "Cannot put a big disk on a smaller one"
  end
  disk.next = top
  self.piles[pile + 1] = disk
end

function Towers:popDiskFrom(pile)
  local top = self.piles[pile + 1]
  if top == false then
    self.failed = true -- "Attempting to remove a disk from an empty pile"
    return TowersDisk.new(0)
  end
  self.piles[pile + 1] = top.next
  top.next = false
  return top
end

function Towers:moveTopDisk(fromPile, toPile)
  self:pushDisk(self:popDiskFrom(fromPile), toPile)
  self.movesDone = self.movesDone + 1
end

function Towers:buildTowerAt(pile, disks)
  for i = disks, 0, -1 do
    self:pushDisk(TowersDisk.new(i), pile)
  end
end

function Towers:moveDisks(disks, fromPile, toPile)
  if disks == 1 then
    self:moveTopDisk(fromPile, toPile)
  else
    local otherPile = (3 - fromPile) - toPile
    self:moveDisks(disks - 1, fromPile, otherPile)
    self:moveTopDisk(fromPile, toPile)
    self:moveDisks(disks - 1, otherPile, toPile)
  end
end

local bench = Towers.new()
awfy.runObject("Towers", bench, awfy.innerIterations(100))
