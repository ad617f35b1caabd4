import Foundation
import Testing
import WotsCore

@Suite struct GroupUpdateContentTests {
    static func state() throws -> GroupState {
        GroupState(
            id: try GroupID(bytes: Array(repeating: 0xAB, count: 16)),
            version: 2,
            previous: Array(repeating: 0x11, count: 32),
            name: "Climbing",
            avatar: .dragon,
            members: [
                GroupMember(
                    token: try Token(bytes: Array(repeating: 2, count: 16)),
                    fingerprint: try Fingerprint(bytes: Array(repeating: 3, count: 32)),
                    joinedAt: 2
                ),
                GroupMember(
                    token: try Token(bytes: Array(repeating: 1, count: 16)),
                    fingerprint: try Fingerprint(bytes: Array(repeating: 4, count: 32)),
                    isAdmin: true,
                    joinedAt: 1
                ),
            ]
        )
    }

    @Test func aGroupUpdateRoundTripsThroughItsJSON() throws {
        for action in GroupUpdate.Action.allCases {
            let body = try MessageBody(.groupUpdate(GroupUpdate(action: action, state: Self.state())))
            #expect(try MessageBody(decoding: body.encoded()) == body, "\(action)")
        }
    }

    @Test func theJSONIsTheShapeSecurityMDSpecifies() throws {
        let encoded = try MessageBody(.groupUpdate(GroupUpdate(action: .add, state: Self.state()))).encoded()
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: Any])
        #expect(fields["type"] as? String == "group_update")
        #expect(fields["action"] as? String == "add")
        let state = try #require(fields["state"] as? [String: Any])
        #expect(state["id"] as? String == String(repeating: "ab", count: 16))
        #expect(state["previous"] as? String == String(repeating: "11", count: 32))
        #expect(state["version"] as? Int == 2)
        #expect(state["name"] as? String == "Climbing")
        #expect((state["avatar"] as? [String: Any])?["preset"] as? String == "dragon")
        let members = try #require(state["members"] as? [[String: Any]])
        #expect(members.map { $0["joinedAt"] as? Int } == [1, 2], "sorted by token")
        #expect(members.map { $0["admin"] as? Bool } == [true, false])
    }

    @Test func anUnknownActionOrAMissingStateIsMalformed() throws {
        let unknown = #"{"type":"group_update","action":"annex","state":{}}"#
        #expect(throws: WotsError.self) { try MessageBody(decoding: Array(unknown.utf8)) }
        let stateless = #"{"type":"group_update","action":"add"}"#
        #expect(throws: WotsError.self) { try MessageBody(decoding: Array(stateless.utf8)) }
    }

    @Test func aTypingStateStillDecodesBesideIt() throws {
        let typing = #"{"type":"typing","state":"started"}"#
        #expect(try MessageBody(decoding: Array(typing.utf8)).content == .typing(.started))
    }
}
