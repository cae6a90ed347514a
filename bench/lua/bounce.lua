-- Lua twin of bench/programs/awfy/bounce.mini (same algorithm, same output).
-- Bounce from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm.
-- Usage: lua bounce.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local abs = math.abs

local Ball = {}
Ball.__index = Ball

function Ball.new(random)
  local self = setmetatable({}, Ball)
  self.x = random:next() % 500
  self.y = random:next() % 500
  self.xVel = (random:next() % 300) - 150
  self.yVel = (random:next() % 300) - 150
  return self
end

function Ball:bounce()
  local xLimit = 500
  local yLimit = 500
  local bounced = false
  self.x = self.x + self.xVel
  self.y = self.y + self.yVel
  if self.x > xLimit then
    self.x = xLimit
    self.xVel = 0 - abs(self.xVel)
    bounced = true
  end
  if self.x < 0 then
    self.x = 0
    self.xVel = abs(self.xVel)
    bounced = true
  end
  if self.y > yLimit then
    self.y = yLimit
    self.yVel = 0 - abs(self.yVel)
    bounced = true
  end
  if self.y < 0 then
    self.y = 0
    self.yVel = abs(self.yVel)
    bounced = true
  end
  return bounced
end

local function benchmark()
  local random = awfy.Random.new()
  local ballCount = 100
  local bounces = 0
  local balls = {}
  for i = 1, ballCount do balls[i] = Ball.new(random) end
  for _ = 1, 50 do
    for b = 1, ballCount do
      if balls[b]:bounce() then bounces = bounces + 1 end
    end
  end
  return bounces
end

local function verifyResult(result)
  return result == 1331
end

awfy.run("Bounce", benchmark, verifyResult, awfy.innerIterations(100))
