import PushBridge
