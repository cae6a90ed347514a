-- Lua twin of bench/programs/binary_trees.mini (same algorithm, same output).
-- The Computer Language Benchmarks Game's binary-trees, with a metatable "class"
-- per node and a check() method, as in the .mini version.
-- Usage: lua binary_trees.lua [MAX_DEPTH]

local TreeNode = {}
TreeNode.__index = TreeNode

function TreeNode.new(left, right)
  return setmetatable({ left = left, right = right }, TreeNode)
end

function TreeNode:check()
  if self.left == nil then return 1 end
  return 1 + self.left:check() + self.right:check()
end

local function bottomUpTree(depth)
  if depth > 0 then
    return TreeNode.new(bottomUpTree(depth - 1), bottomUpTree(depth - 1))
  end
  return TreeNode.new(nil, nil)
end

local minDepth = 4
local maxDepth = tonumber(arg and arg[1]) or 16
if minDepth + 2 > maxDepth then maxDepth = minDepth + 2 end
local stretchDepth = maxDepth + 1

print("stretch tree of depth " .. stretchDepth .. " check: " .. bottomUpTree(stretchDepth):check())

local longLivedTree = bottomUpTree(maxDepth)

for depth = minDepth, maxDepth, 2 do
  local iterations = 1 << (maxDepth - depth + minDepth)
  local check = 0
  for _ = 1, iterations do
    check = check + bottomUpTree(depth):check()
  end
  print(iterations .. " trees of depth " .. depth .. " check: " .. check)
end

print("long lived tree of depth " .. maxDepth .. " check: " .. longLivedTree:check())
